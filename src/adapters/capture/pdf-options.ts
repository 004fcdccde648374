/**
 * The PDF controls (pdf_margin, pdf_header / pdf_footer, pdf_page_ranges, pdf_scale, pdf_width / pdf_height,
 * pdf_outline) as puppeteer's page.pdf() options, and Chromium's refusals of them as failures in words.
 */
import type { Page, PDFOptions } from 'puppeteer';

import { CaptureFailure } from '../../modules/screenshots/application/capture.port';
import type { ResolvedOutput } from '../../shared/domain/capture-option-rules';
import type { PdfPaper } from '../../shared/domain/output-format';
import { cssLengthInches, parsePdfMargin } from '../../shared/domain/pdf-options';

type PdfOutput = NonNullable<ResolvedOutput['pdf']>;

/** Paper sizes in inches, as puppeteer prints them (its PaperFormat table), portrait. */
const PAPER_INCHES: Record<PdfPaper, { width: number; height: number }> = {
  a4: { width: 8.27, height: 11.7 },
  a3: { width: 11.7, height: 16.54 },
  letter: { width: 8.5, height: 11 },
  legal: { width: 8.5, height: 14 },
};

/** Top and bottom margin when a header or footer is printed and no pdf_margin says otherwise: room for a line. */
const HEADER_FOOTER_MARGIN_INCHES = 0.6;
/**
 * What Chromium prints for the side nobody asked for when only one of header and footer is given (its own default
 * template would print the date and the title there).
 */
const EMPTY_TEMPLATE = '<span></span>';

/** The page's size in inches: the paper, turned by landscape, then pdf_width / pdf_height over it. */
export function pdfPageInches(pdf: PdfOutput): { width: number; height: number } {
  const paper = PAPER_INCHES[pdf.paper];
  const [paperWidth, paperHeight] = pdf.landscape ? [paper.height, paper.width] : [paper.width, paper.height];
  return {
    width: (pdf.width !== undefined ? cssLengthInches(pdf.width) : null) ?? paperWidth,
    height: (pdf.height !== undefined ? cssLengthInches(pdf.height) : null) ?? paperHeight,
  };
}

/** puppeteer's options for the PDF asked for. Without the fourth round's controls: paper, orientation, backgrounds as before. */
export function puppeteerPdfOptions(pdf: PdfOutput): PDFOptions {
  const sized = pdf.width !== undefined || pdf.height !== undefined;
  const { width, height } = pdfPageInches(pdf);
  const headerFooter = pdf.header !== undefined || pdf.footer !== undefined;
  const margins = pdf.margin !== undefined ? parsePdfMargin(pdf.margin) : null;
  const margin = margins
    ? { top: `${margins.top}in`, right: `${margins.right}in`, bottom: `${margins.bottom}in`, left: `${margins.left}in` }
    : headerFooter
      ? { top: `${HEADER_FOOTER_MARGIN_INCHES}in`, bottom: `${HEADER_FOOTER_MARGIN_INCHES}in` }
      : undefined;
  return {
    // An explicit size is the page as given: the paper's orientation is already in it.
    ...(sized ? { width: `${width}in`, height: `${height}in`, landscape: false } : { format: pdf.paper, landscape: pdf.landscape }),
    printBackground: pdf.printBackground,
    ...(margin ? { margin } : {}),
    ...(headerFooter ? { displayHeaderFooter: true, headerTemplate: pdf.header ?? EMPTY_TEMPLATE, footerTemplate: pdf.footer ?? EMPTY_TEMPLATE } : {}),
    ...(pdf.pageRanges !== undefined ? { pageRanges: pdf.pageRanges } : {}),
    ...(pdf.scale !== undefined ? { scale: pdf.scale } : {}),
    ...(pdf.outline ? { outline: true, tagged: true } : {}),
    timeout: 0,
  };
}

/**
 * The page printed with those options. Chromium's refusals of what only the printed document can judge (a page range
 * beyond its last page, margins that leave no room) fail the capture as the page's, in words naming the option.
 */
export async function printWithOptions(page: Page, pdf: PdfOutput): Promise<Uint8Array> {
  try {
    return await page.pdf(puppeteerPdfOptions(pdf));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/page range exceeds page count/i.test(message)) {
      const pages = await printedPageCount(page, pdf).catch(() => null);
      throw new CaptureFailure(
        'page',
        `pdf_page_ranges "${pdf.pageRanges ?? ''}" asks for pages beyond the document's last page${pages !== null ? ` (it has ${pages})` : ''}`,
      );
    }
    if (/page range syntax/i.test(message)) throw new CaptureFailure('page', `pdf_page_ranges "${pdf.pageRanges ?? ''}" is not a list of page ranges`);
    if (/content area is empty/i.test(message)) throw new CaptureFailure('page', 'pdf_margin leaves no room for the page’s content on the paper');
    throw error;
  }
}

/** How many pages the document prints on (all of them), for the message of a range beyond the last. */
async function printedPageCount(page: Page, pdf: PdfOutput): Promise<number> {
  const { pageRanges: _ranges, outline: _outline, ...all } = pdf;
  const bytes = Buffer.from(await page.pdf(puppeteerPdfOptions(all)));
  return (bytes.toString('latin1').match(/\/Type\s*\/Page(?![s\w])/g) ?? []).length;
}
