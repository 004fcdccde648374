import { CONTENT_FORMATS, ContentFormat, OUTPUT_FORMATS, OutputFormat } from '../../../shared/domain/output-format';

/**
 * A render's `formats` (docs/outputs.md, response_type=json): several outputs of one page visit. At most one file
 * format (png, jpeg, webp, pdf, webm or gif) — the render's file, linked as with `format` — and any content formats, inlined in
 * the answer. Without a file format the first content format is the file.
 */
export interface RenderFormats {
  file: OutputFormat;
  contents: ContentFormat[];
}

/** The formats that are a render's file, in words: "png, jpeg, webp, pdf, webm and gif". */
const FILE_FORMATS = ((files) => `${files.slice(0, -1).join(', ')} and ${files[files.length - 1]}`)(
  OUTPUT_FORMATS.filter((f) => !(CONTENT_FORMATS as readonly string[]).includes(f)),
);

/** `formats` as a comma-separated string or a list, read; or what is wrong with it. */
export function parseRenderFormats(value: unknown): RenderFormats | { problem: string } {
  const rule = `must be a comma-separated list of ${OUTPUT_FORMATS.join(', ')}`;
  const list = typeof value === 'string' ? value.split(',').map((s) => s.trim()) : Array.isArray(value) ? value : null;
  if (!list || list.length === 0 || list.some((f) => typeof f !== 'string')) return { problem: rule };
  const unknown = (list as string[]).find((f) => !(OUTPUT_FORMATS as readonly string[]).includes(f));
  if (unknown !== undefined) return { problem: `${rule}: "${unknown}" is none of them` };
  const formats = list as OutputFormat[];
  const repeated = formats.find((f, i) => formats.indexOf(f) !== i);
  if (repeated) return { problem: `names ${repeated} twice` };
  const isContent = (f: OutputFormat): f is ContentFormat => (CONTENT_FORMATS as readonly string[]).includes(f);
  const files = formats.filter((f) => !isContent(f));
  if (files.length > 1) return { problem: `may name one of ${FILE_FORMATS} (the render's file), not ${files.join(' and ')}` };
  const file: OutputFormat = files.length > 0 ? files[0] : formats[0];
  return { file, contents: formats.filter(isContent).filter((f) => f !== file) };
}
