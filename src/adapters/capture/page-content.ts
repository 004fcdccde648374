/**
 * The page's content as a capture's output (API.md fourth round, Outputs; docs/outputs.md): `html` (the DOM after
 * scripts ran), `markdown` (the main content as a reader view takes it: Mozilla's Readability run in the page, on a
 * copy of the document, then turndown here), `text` (the visible text) and `metadata` (title, description,
 * canonical, lang, Open Graph, Twitter cards, icons, JSON-LD, as JSON). Read once the page settled, where the
 * picture would be taken; a viewport PNG is taken too, for the thumbnail (as for a PDF).
 */
import { readFileSync } from 'node:fs';

import type { Page } from 'puppeteer';
import TurndownService from 'turndown';

import { CaptureFailure, type CaptureResult } from '../../modules/screenshots/application/capture.port';
import { CONTENT_FORMATS, type ContentFormat, type OutputFormat } from '../../shared/domain/output-format';
import { visibleTextScript } from './in-page-scripts';
import { type ScreenshotSetup, takeScreenshot } from './page-steps';

/** The largest content kept (bytes of UTF-8): beyond it the capture fails rather than store a runaway page. */
export const PAGE_CONTENT_MAX_BYTES = 20 * 1024 * 1024;

/** Readability's source, evaluated in the page (it needs a DOM; the page has one). Read once. */
let readabilitySource: string | null = null;
function readability(): string {
  readabilitySource ??= readFileSync(require.resolve('@mozilla/readability/Readability.js'), 'utf8');
  return readabilitySource;
}

export function isContentFormat(format: OutputFormat | undefined): format is ContentFormat {
  return (CONTENT_FORMATS as readonly string[]).includes(format ?? '');
}

/** The document as serialised after its scripts ran, with its doctype. */
const HTML_SCRIPT = `(() => {
  const doctype = document.doctype ? new XMLSerializer().serializeToString(document.doctype) + '\\n' : '';
  return doctype + document.documentElement.outerHTML;
})()`;

interface Article {
  title: string;
  content: string;
}

/**
 * Readability on a copy of the document (it rewrites what it is given); classes kept (a code block's `language-*`).
 * A page Readability finds no article in (a list, an app) gives its body, so there is always something.
 */
function articleScript(): string {
  return `(() => {
  ${readability()}
  const parsed = new Readability(document.cloneNode(true), { keepClasses: true, charThreshold: 200 }).parse();
  if (parsed && parsed.content) {
    return { title: parsed.title || document.title || '', content: parsed.content };
  }
  return { title: document.title || '', content: document.body ? document.body.innerHTML : '' };
})()`;
}

/** Metadata as the page declares it: <title>, <meta>, <link>, JSON-LD. URLs made absolute against the document. */
const METADATA_SCRIPT = `(() => {
  const meta = (selector) => { const el = document.querySelector(selector); return el ? (el.getAttribute('content') || '').trim() || null : null; };
  const absolute = (href) => { try { return new URL(href, document.baseURI).href; } catch (e) { return href; } };
  const group = (prefix) => {
    const out = {};
    for (const el of document.querySelectorAll('meta[property], meta[name]')) {
      const key = (el.getAttribute('property') || el.getAttribute('name') || '').trim();
      if (!key.toLowerCase().startsWith(prefix)) continue;
      const name = key.slice(prefix.length);
      const value = (el.getAttribute('content') || '').trim();
      if (!name) continue;
      if (out[name] === undefined) out[name] = value;
      else out[name] = [].concat(out[name], value);
    }
    return out;
  };
  const canonical = document.querySelector('link[rel~="canonical" i][href]');
  const icons = [...document.querySelectorAll('link[rel][href]')]
    .filter((el) => /(^|\\s)(icon|apple-touch-icon|apple-touch-icon-precomposed|mask-icon)(\\s|$)/i.test(el.getAttribute('rel')))
    .map((el) => ({ rel: el.getAttribute('rel').toLowerCase(), href: absolute(el.getAttribute('href')), sizes: el.getAttribute('sizes'), type: el.getAttribute('type') }));
  const jsonLd = [];
  for (const el of document.querySelectorAll('script[type="application/ld+json" i]')) {
    try { jsonLd.push(JSON.parse(el.textContent || '')); } catch (e) { /* not JSON: left out */ }
  }
  return {
    url: location.href,
    title: document.title || null,
    description: meta('meta[name="description" i]'),
    canonical: canonical ? absolute(canonical.getAttribute('href')) : null,
    lang: document.documentElement.getAttribute('lang') || null,
    open_graph: group('og:'),
    twitter: group('twitter:'),
    icons,
    json_ld: jsonLd,
  };
})()`;

/** Markdown of an article's HTML: ATX headings, fenced code (with its language), GFM tables where they fit. */
export function markdownOf(article: { title: string; content: string }): string {
  const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '_' });
  turndown.remove(['script', 'style', 'noscript', 'iframe']);
  addTableRules(turndown);
  const body = turndown.turndown(article.content);
  const head = article.title ? `# ${article.title.trim()}\n\n` : '';
  // Readability keeps the article's own heading when it repeats the title: once is enough.
  const repeated = article.title && body.startsWith(`# ${article.title.trim()}`);
  return `${repeated ? '' : head}${body}\n`;
}

/** The part of a DOM element the table rules read: the project compiles without the DOM lib (tsconfig.build.json). */
interface DomElement {
  nodeName: string;
  getAttribute(name: string): string | null;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
  closest(selector: string): DomElement | null;
}

type TurndownNode = DomElement & { isBlock?: boolean };

/**
 * GitHub tables (turndown-plugin-gfm is not among our packages): a table of plain rows and cells (no colspan or
 * rowspan, no nested table) becomes | a | b | with a header line (its first row); any other table is kept as HTML,
 * which markdown allows.
 */
function addTableRules(turndown: TurndownService): void {
  const spans = (cell: DomElement): boolean => ['colspan', 'rowspan'].some((name) => (cell.getAttribute(name) ?? '1').trim() !== '1');
  const simple = (table: DomElement): boolean =>
    table.querySelectorAll('tr').length > 0 && !table.querySelector('table') && !Array.from(table.querySelectorAll('th, td')).some(spans);
  const cell = (content: string): string => content.replace(/\n+/g, ' ').replace(/\|/g, '\\|').trim();
  turndown.addRule('tableCell', {
    filter: (node) => (node.nodeName === 'TH' || node.nodeName === 'TD') && simple(node.closest('table') as DomElement),
    replacement: (content) => ` ${cell(content)} |`,
  });
  turndown.addRule('tableRow', {
    filter: (node) => node.nodeName === 'TR' && simple(node.closest('table') as DomElement),
    replacement: (content, node) => {
      const row = `|${content}\n`;
      const table = (node as TurndownNode).closest('table') as DomElement;
      if (table.querySelector('tr') !== node) return row;
      const cells = (node as TurndownNode).querySelectorAll('th, td').length;
      return `${row}|${' --- |'.repeat(cells)}\n`;
    },
  });
  turndown.addRule('tableSection', {
    filter: (node) => ['THEAD', 'TBODY', 'TFOOT'].includes(node.nodeName) && simple(node.closest('table') as DomElement),
    replacement: (content) => content,
  });
  turndown.addRule('table', {
    filter: (node) => node.nodeName === 'TABLE',
    replacement: (content, node) => {
      if (!simple(node)) return `\n\n${node.outerHTML}\n\n`;
      const caption = node.querySelector('caption')?.textContent?.trim();
      return `\n\n${caption ? `${caption}\n\n` : ''}${content.replace(/\n+$/, '').replace(/^\n+/, '')}\n\n`;
    },
  });
  turndown.addRule('tableCaption', { filter: ['caption'], replacement: () => '' });
}

/** The content of `format`, as the bytes stored and downloaded. */
export async function readPageContent(page: Page, format: ContentFormat): Promise<Buffer> {
  let content: string;
  switch (format) {
    case 'html':
      content = (await page.evaluate(HTML_SCRIPT)) as string;
      break;
    case 'markdown':
      content = markdownOf((await page.evaluate(articleScript())) as Article);
      break;
    case 'text':
      content = (await page.evaluate(visibleTextScript([], null))) as string;
      break;
    case 'metadata':
      content = `${JSON.stringify(await page.evaluate(METADATA_SCRIPT), null, 2)}\n`;
      break;
  }
  const bytes = Buffer.from(content, 'utf8');
  if (bytes.byteLength > PAGE_CONTENT_MAX_BYTES) {
    throw new CaptureFailure('page', `The page's ${format} is larger than ${PAGE_CONTENT_MAX_BYTES / 1024 / 1024} MB`);
  }
  return bytes;
}

/**
 * A capture whose output is the page's content: the content, and the viewport as a PNG for the thumbnail (its size is
 * the screenshot's width and height, as the page was seen).
 */
export async function captureContent(page: Page, format: ContentFormat, fastPngEncoding: boolean): Promise<CaptureResult> {
  const data = await readPageContent(page, format);
  const preview = await page.screenshot({ type: 'png', captureBeyondViewport: false, optimizeForSpeed: fastPngEncoding });
  const viewport = page.viewport();
  return {
    data,
    format,
    width: viewport?.width ?? 0,
    height: viewport?.height ?? 0,
    preview: Buffer.from(preview.buffer, preview.byteOffset, preview.byteLength),
  };
}

/** What a capture produces once the page is ready: its content for a content format, else the picture (or PDF). */
export async function takeOutput(page: Page, setup: ScreenshotSetup & { contents?: readonly ContentFormat[] }): Promise<CaptureResult> {
  const format = setup.output?.format;
  const result = isContentFormat(format) ? await captureContent(page, format, setup.fastPngEncoding) : await takeScreenshot(page, setup);
  if (!setup.contents?.length) return result;
  // Read after the picture, in the same visit: several outputs of one page (a render's `formats`).
  const contents: Partial<Record<ContentFormat, string>> = {};
  for (const content of setup.contents) contents[content] = (await readPageContent(page, content)).toString('utf8');
  return { ...result, contents };
}
