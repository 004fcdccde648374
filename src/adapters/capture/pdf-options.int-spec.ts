/**
 * Integration spec: the PDF controls (pdf_margin, pdf_header / pdf_footer, pdf_page_ranges, pdf_scale, pdf_width /
 * pdf_height, pdf_outline) in real Chromium against pages served on 127.0.0.1. Every effect is read back from the
 * PDF with a PDF library (pdf-parse): its pages' text, their MediaBox, its outline.
 */
import type { CaptureRequest } from '../../modules/screenshots/application/capture.port';
import type { ResolvedOutput } from '../../shared/domain/capture-option-rules';
import { captureRequest } from '../../../test/support/capture-request';
import { PageServer } from '../../../test/support/page-server';
import { readPdf } from '../../../test/support/pdf';
import { PuppeteerPageCapturer } from './puppeteer-page-capturer';

jest.setTimeout(90_000);

const THREE_PAGES =
  '<!doctype html><html><head><title>Annual report</title><style>section{break-after:page}section:last-child{break-after:auto}</style></head><body>' +
  '<section><h1>Chapter One</h1><p>First body</p></section>' +
  '<section><h1>Chapter Two</h1><h2>Section Two A</h2><p>Second body</p></section>' +
  '<section><h1>Chapter Three</h1><p>Third body</p></section></body></html>';
/** 2000 CSS px of content: two A4 pages without margins (1123 px each), more with wide margins, one at half scale. */
const LONG = '<!doctype html><html><head><style>html,body{margin:0}div{height:2000px;background:#eee}</style></head><body><div>Long</div></body></html>';

const FOOTER = '<div style="font-size:10px;width:100%;text-align:center">Page <span class="pageNumber"></span> of <span class="totalPages"></span></div>';
const HEADER = '<div style="font-size:10px;width:100%;text-align:center">Head: <span class="title"></span></div>';

/** Chromium sizes pages in whole points: a side read back is within 1 pt of the length asked for. */
function expectPoints(actual: number, expected: number): void {
  expect({ actual, off: Math.abs(actual - expected) <= 1 }).toEqual({ actual, off: true });
}

/** Points (1/72 in) per mm. */
const PT_PER_MM = 72 / 25.4;

describe('PDF controls (real Chromium, read back with pdf-parse)', () => {
  let pages: PageServer;
  let capturer: PuppeteerPageCapturer;

  const pdf = (path: string, controls: Partial<NonNullable<ResolvedOutput['pdf']>> = {}, overrides: Partial<CaptureRequest> = {}) =>
    capturer.capture(
      captureRequest(`${pages.url}${path}`, {
        waitUntil: 'load',
        output: { format: 'pdf', quality: null, omitBackground: false, pdf: { paper: 'a4', landscape: false, printBackground: true, ...controls } },
        ...overrides,
      }),
    );

  beforeAll(async () => {
    pages = await new PageServer({ '/three': THREE_PAGES, '/long': LONG }).start();
    capturer = new PuppeteerPageCapturer({ browsers: 1, concurrency: 2, timeoutMs: 30_000, allowPrivateNetworks: true });
    await capturer.warmUp();
  });

  afterAll(async () => {
    await capturer.close();
    await pages.stop();
  });

  it('a footer with pageNumber and totalPages reads "Page 2 of 3" on the second page; a header fills in the title', async () => {
    const read = await readPdf((await pdf('/three', { footer: FOOTER, header: HEADER })).data);
    expect(read.pages).toBe(3);
    expect(read.pageTexts[1]).toContain('Page 2 of 3');
    expect(read.pageTexts[0]).toContain('Page 1 of 3');
    expect(read.pageTexts[2]).toContain('Head: Annual report');
    expect(read.pageTexts[1]).toContain('Second body');
    // Without them, no page number is printed at all.
    const plain = await readPdf((await pdf('/three')).data);
    expect(plain.pageTexts.join('\n')).not.toContain('of 3');
  });

  it('only a footer: the header stays empty (not Chromium’s default date and title)', async () => {
    const read = await readPdf((await pdf('/three', { footer: FOOTER })).data);
    expect(read.pageTexts[0]).not.toContain('Annual report');
    expect(read.pageTexts[0]).toContain('Page 1 of 3');
  });

  it('page ranges keep those pages only; a range past the last page fails naming the page count', async () => {
    const some = await readPdf((await pdf('/three', { pageRanges: '1,3' })).data);
    expect(some.pages).toBe(2);
    expect(some.pageTexts[1]).toContain('Third body');
    const open = await readPdf((await pdf('/three', { pageRanges: '2-' })).data);
    expect(open.pages).toBe(2);
    expect(open.pageTexts[0]).toContain('Second body');
    await expect(pdf('/three', { pageRanges: '5-6' })).rejects.toMatchObject({
      kind: 'page',
      message: 'pdf_page_ranges "5-6" asks for pages beyond the document\'s last page (it has 3)',
    });
  });

  it('pdf_width / pdf_height set the MediaBox (over the paper), and the result’s size follows', async () => {
    const result = await pdf('/three', { width: '100mm', height: '150mm' });
    const read = await readPdf(result.data);
    for (const size of read.sizes) {
      expectPoints(size.width, 100 * PT_PER_MM);
      expectPoints(size.height, 150 * PT_PER_MM);
    }
    expect([result.width, result.height]).toEqual([Math.round((100 / 25.4) * 96), Math.round((150 / 25.4) * 96)]);
    // Only the width: the paper's height (A4 landscape here: 297 mm × 210 mm turned, width replaced).
    const wide = await readPdf((await pdf('/three', { width: '400mm', landscape: true })).data);
    expectPoints(wide.sizes[0].width, 400 * PT_PER_MM);
    expectPoints(wide.sizes[0].height, 8.27 * 72);
    // Nothing set: A4.
    const a4 = await readPdf((await pdf('/three')).data);
    expectPoints(a4.sizes[0].width, 8.27 * 72);
    expectPoints(a4.sizes[0].height, 11.7 * 72);
  });

  it('margins narrow the content area: the same 2000 px print on more pages; pdf_scale 0.5 fits them on one', async () => {
    expect((await readPdf((await pdf('/long')).data)).pages).toBe(2);
    expect((await readPdf((await pdf('/long', { margin: '3in' })).data)).pages).toBe(4);
    // Four values: top right bottom left (only top and bottom change the height here).
    expect((await readPdf((await pdf('/long', { margin: '3in 0 3in 0' })).data)).pages).toBe(4);
    expect((await readPdf((await pdf('/long', { margin: '0 3in 0 3in' })).data)).pages).toBe(2);
    expect((await readPdf((await pdf('/long', { scale: 0.5 })).data)).pages).toBe(1);
  });

  it('pdf_outline: bookmarks from the headings; none without it', async () => {
    const read = await readPdf((await pdf('/three', { outline: true })).data);
    expect(read.outline).toEqual(expect.arrayContaining(['Chapter One', 'Chapter Two', 'Section Two A', 'Chapter Three']));
    expect((await readPdf((await pdf('/three')).data)).outline).toEqual([]);
  });
});
