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
