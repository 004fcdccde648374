/**
 * What a capture produces (API.md, Capture options: `format`, `quality`, `pdf_*`, `omit_background`). One
 * definition shared by request and website validation, job rows, the capturer, storage keys and downloads.
 */
export const OUTPUT_FORMATS = ['png', 'jpeg', 'webp', 'pdf', 'html', 'markdown', 'text', 'metadata', 'webm', 'gif'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
/** The pictures (the others are a printed PDF and the page's content). */
export const IMAGE_FORMATS = ['png', 'jpeg', 'webp'] as const satisfies readonly OutputFormat[];
/**
 * The page's content instead of a picture (docs/outputs.md): the DOM after scripts ran, the main content as
 * markdown, the visible text, the page's metadata as JSON.
 */
export const CONTENT_FORMATS = ['html', 'markdown', 'text', 'metadata'] as const satisfies readonly OutputFormat[];
export type ContentFormat = (typeof CONTENT_FORMATS)[number];

export type ImageFormat = (typeof IMAGE_FORMATS)[number];

/**
 * A video of a smooth scroll through the page, top to bottom, at the viewport's size (docs/outputs.md): recorded
 * from Chromium's screencast and encoded by ffmpeg (WebM, VP9; GIF, a palette per video, 12 frames a second).
 */
export const VIDEO_FORMATS = ['webm', 'gif'] as const satisfies readonly OutputFormat[];
export type VideoFormat = (typeof VIDEO_FORMATS)[number];

export function isVideoFormat(format: string | undefined): format is VideoFormat {
  return (VIDEO_FORMATS as readonly string[]).includes(format ?? '');
}

/** How long a video's scroll from the top to the bottom takes (`scroll_duration_ms`); a still half second at each end. */
export const SCROLL_DURATION_MS = { min: 1000, max: 20_000, default: 5000 } as const;

export function isImageFormat(format: string): format is ImageFormat {
  return (IMAGE_FORMATS as readonly string[]).includes(format);
}

/** The image format of a picture taken for `format`: itself for an image, else png (a PDF's or content's preview). */
export function imageFormatOf(format: OutputFormat): ImageFormat {
  return isImageFormat(format) ? format : 'png';
}
export const DEFAULT_FORMAT: OutputFormat = 'png';

/** File extension (without the dot) and media type of each format: storage keys, downloads, ZIP entries. */
export const FORMAT_FILES: Record<OutputFormat, { extension: string; mimeType: string }> = {
  png: { extension: 'png', mimeType: 'image/png' },
  jpeg: { extension: 'jpg', mimeType: 'image/jpeg' },
  webp: { extension: 'webp', mimeType: 'image/webp' },
  pdf: { extension: 'pdf', mimeType: 'application/pdf' },
  html: { extension: 'html', mimeType: 'text/html; charset=utf-8' },
  markdown: { extension: 'md', mimeType: 'text/markdown; charset=utf-8' },
  text: { extension: 'txt', mimeType: 'text/plain; charset=utf-8' },
  metadata: { extension: 'json', mimeType: 'application/json' },
  webm: { extension: 'webm', mimeType: 'video/webm' },
  gif: { extension: 'gif', mimeType: 'image/gif' },
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
