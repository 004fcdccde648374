/**
 * What a capture produces (API.md, Capture options: `format`, `quality`, `pdf_*`, `omit_background`). One
 * definition shared by request and website validation, job rows, the capturer, storage keys and downloads.
 */
export const OUTPUT_FORMATS = ['png', 'jpeg', 'webp', 'pdf'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
export const DEFAULT_FORMAT: OutputFormat = 'png';

/** File extension (without the dot) and media type of each format: storage keys, downloads, ZIP entries. */
export const FORMAT_FILES: Record<OutputFormat, { extension: string; mimeType: string }> = {
  png: { extension: 'png', mimeType: 'image/png' },
  jpeg: { extension: 'jpg', mimeType: 'image/jpeg' },
  webp: { extension: 'webp', mimeType: 'image/webp' },
  pdf: { extension: 'pdf', mimeType: 'application/pdf' },
};

/** Formats whose encoder takes a quality: the others refuse `quality` (a 422, not silently ignored). */
export const LOSSY_FORMATS: readonly OutputFormat[] = ['jpeg', 'webp'];
/** Formats that keep an alpha channel, so `omit_background` can show anything. */
export const TRANSPARENT_FORMATS: readonly OutputFormat[] = ['png', 'webp'];
export const QUALITY = { min: 1, max: 100, default: 80 } as const;

/** Paper sizes for PDF, as puppeteer names them in lower case. */
export const PDF_PAPERS = ['a4', 'letter', 'legal', 'a3'] as const;
export type PdfPaper = (typeof PDF_PAPERS)[number];
export const DEFAULT_PDF_PAPER: PdfPaper = 'a4';

/** Output choices as stored on a job or a website (every field optional: the service default applies). */
export interface OutputOptions {
  format?: OutputFormat;
  quality?: number;
  pdfPaper?: PdfPaper;
  pdfLandscape?: boolean;
  pdfPrintBackground?: boolean;
  omitBackground?: boolean;
}

/** The output of one capture, every default applied. */
export interface ResolvedOutput {
  format: OutputFormat;
  /** Only for jpeg and webp. */
  quality: number | null;
  pdf: { paper: PdfPaper; landscape: boolean; printBackground: boolean } | null;
  omitBackground: boolean;
}

/** The request's choices over the website's, field by field, then the service defaults. */
export function resolveOutput(request: OutputOptions, website: OutputOptions): ResolvedOutput {
  const pick = <K extends keyof OutputOptions>(key: K): OutputOptions[K] => (request[key] !== undefined ? request[key] : website[key]);
  const format = pick('format') ?? DEFAULT_FORMAT;
  return {
    format,
    quality: LOSSY_FORMATS.includes(format) ? (pick('quality') ?? QUALITY.default) : null,
    pdf:
      format === 'pdf'
        ? { paper: pick('pdfPaper') ?? DEFAULT_PDF_PAPER, landscape: pick('pdfLandscape') ?? false, printBackground: pick('pdfPrintBackground') ?? true }
        : null,
    omitBackground: TRANSPARENT_FORMATS.includes(format) ? (pick('omitBackground') ?? false) : false,
  };
}

/**
 * Choices that contradict the format they end up with (the request's over the website's): quality without a
 * lossy format, PDF settings without PDF, a transparent background in a format without alpha. Each names the
 * field as the API spells it.
 */
export function outputConflicts(request: OutputOptions, website: OutputOptions = {}): Array<{ field: string; message: string }> {
  const format = request.format ?? website.format ?? DEFAULT_FORMAT;
  const problems: Array<{ field: string; message: string }> = [];
  const set = (key: keyof OutputOptions) => request[key] !== undefined || (request.format === undefined && website[key] !== undefined);
  if (set('quality') && !LOSSY_FORMATS.includes(format)) {
    problems.push({ field: 'quality', message: `quality applies only to jpeg and webp, not ${format}` });
  }
  for (const [key, field] of [
    ['pdfPaper', 'pdf_paper'],
    ['pdfLandscape', 'pdf_landscape'],
    ['pdfPrintBackground', 'pdf_print_background'],
  ] as const) {
    if (set(key) && format !== 'pdf') problems.push({ field, message: `${field} applies only to pdf, not ${format}` });
  }
  const omit = request.omitBackground ?? (request.format === undefined ? website.omitBackground : undefined);
  if (omit === true && !TRANSPARENT_FORMATS.includes(format)) {
    problems.push({ field: 'omit_background', message: `omit_background applies only to png and webp, not ${format}` });
  }
  return problems;
}
