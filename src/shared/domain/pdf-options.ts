/**
 * The PDF controls (API.md fourth round, Outputs): `pdf_margin`, `pdf_header` / `pdf_footer`, `pdf_page_ranges`,
 * `pdf_scale`, `pdf_width` / `pdf_height`, `pdf_outline`. Their rules (what a CSS length, a margin, a page range is)
 * in one place, shared by validation (capture-option-fields.ts) and the capturer (adapters/capture/pdf-options.ts).
 */

/** The units Chromium's printer takes (puppeteer's): CSS px, inches, centimetres, millimetres. */
const PER_INCH = { px: 96, in: 1, cm: 2.54, mm: 25.4 } as const;
const LENGTH = /^(\d{1,5}(?:\.\d{1,4})?|\.\d{1,4})(px|in|cm|mm)?$/;

export const PDF_LIMITS = {
  /** A page side: from 1 in (a label) to 200 in (a long banner). */
  sideMinInches: 1,
  sideMaxInches: 200,
  /** One margin. */
  marginMaxInches: 20,
  /** pdf_header / pdf_footer: bytes of UTF-8 each (inline styles and a data: logo fit; no page in a header). */
  templateMaxBytes: 16 * 1024,
  scale: { min: 0.1, max: 2, default: 1 },
  pageRangesMax: 200,
} as const;

/**
 * Inches of one CSS length (`12mm`, `1in`, `0.5cm`, `40px`, `0`), or null when it is not one. A number without a
 * unit is only allowed for 0.
 */
export function cssLengthInches(value: string): number | null {
  const match = LENGTH.exec(value.trim());
  if (!match) return null;
  const amount = Number(match[1]);
  const unit = match[2] as keyof typeof PER_INCH | undefined;
  if (unit === undefined) return amount === 0 ? 0 : null;
  return amount / PER_INCH[unit];
}

const LENGTH_RULE = 'a CSS length in px, in, cm or mm (e.g. 20mm)';

/** What is wrong with a page side (`pdf_width`, `pdf_height`), or null. */
export function pdfSideProblem(value: unknown): string | null {
  if (typeof value !== 'string') return `must be ${LENGTH_RULE}`;
  const inches = cssLengthInches(value);
  if (inches === null) return `must be ${LENGTH_RULE}`;
  if (inches < PDF_LIMITS.sideMinInches || inches > PDF_LIMITS.sideMaxInches)
    return `must be from ${PDF_LIMITS.sideMinInches} in to ${PDF_LIMITS.sideMaxInches} in (${value.trim()} is ${round(inches)} in)`;
  return null;
}

/** Margins in inches, in CSS order. */
export interface PdfMargins {
  top: number;
  right: number;
  bottom: number;
  left: number;
}

/** `pdf_margin` as margins: one length for all four sides, or four (top right bottom left, as CSS); else null. */
export function parsePdfMargin(value: string): PdfMargins | null {
  const parts = value.trim().split(/\s+/);
  if (parts.length !== 1 && parts.length !== 4) return null;
  const inches = parts.map(cssLengthInches);
  if (inches.some((i) => i === null)) return null;
  const [top, right, bottom, left] = parts.length === 1 ? [inches[0], inches[0], inches[0], inches[0]] : inches;
  return { top: top!, right: right!, bottom: bottom!, left: left! };
}

/** What is wrong with `pdf_margin`, or null. */
export function pdfMarginProblem(value: unknown): string | null {
  const rule = `must be one CSS length for all sides or four (top right bottom left), each in px, in, cm or mm (e.g. "20mm" or "1in 0.5in 1in 0.5in")`;
  if (typeof value !== 'string') return rule;
  const margins = parsePdfMargin(value);
  if (!margins) return rule;
  if (Object.values(margins).some((m) => m > PDF_LIMITS.marginMaxInches)) return `must be at most ${PDF_LIMITS.marginMaxInches} in on each side`;
  return null;
}

const RANGES = /^\s*\d{1,5}\s*(-\s*\d{0,5}\s*)?(,\s*\d{1,5}\s*(-\s*\d{0,5}\s*)?)*$/;

/** What is wrong with `pdf_page_ranges` (`1-3,5`, `2-`: pages counted from 1), or null. */
export function pageRangesProblem(value: unknown): string | null {
  const rule = 'must be page numbers and ranges counted from 1, separated by commas (e.g. "1-3,5" or "2-")';
  if (typeof value !== 'string' || value.length > PDF_LIMITS.pageRangesMax || !RANGES.test(value)) return rule;
  for (const part of value.split(',')) {
    const [from, to] = part.split('-').map((s) => s.trim());
    if (Number(from) < 1) return `${rule}: ${part.trim()} starts before page 1`;
    if (to !== undefined && to !== '' && Number(to) < Number(from)) return `${rule}: ${part.trim()} ends before it starts`;
  }
  return null;
}

/** Which rule a PDF control's text follows (the capture-option table's `pdfText` kind). */
export type PdfTextRule = 'margin' | 'side' | 'ranges' | 'template';

/** What is wrong with a PDF control's text under its rule, or null. */
export function pdfTextProblem(rule: PdfTextRule, value: unknown): string | null {
  switch (rule) {
    case 'margin':
      return pdfMarginProblem(value);
    case 'side':
      return pdfSideProblem(value);
    case 'ranges':
      return pageRangesProblem(value);
    case 'template':
      return pdfTemplateProblem(value);
  }
}

/** What is wrong with a header or footer template, or null. */
export function pdfTemplateProblem(value: unknown): string | null {
  if (typeof value !== 'string') return 'must be a string of HTML';
  if (UTF8.encode(value).byteLength > PDF_LIMITS.templateMaxBytes) return `must be at most ${PDF_LIMITS.templateMaxBytes} bytes`;
  return null;
}

const UTF8 = new TextEncoder();

function round(inches: number): number {
  return Math.round(inches * 100) / 100;
}
