import { CAPTURE_OPTION_TABLE, type CaptureOptionSpec } from './capture-option-table';
import { cssLengthInches, pageRangesProblem, parsePdfMargin, pdfMarginProblem, pdfSideProblem, pdfTemplateProblem, pdfTextProblem } from './pdf-options';

describe('PDF controls: their rules', () => {
  it('a CSS length in px, in, cm or mm; 0 without a unit; nothing else', () => {
    expect(cssLengthInches('1in')).toBe(1);
    expect(cssLengthInches('96px')).toBe(1);
    expect(cssLengthInches('25.4mm')).toBeCloseTo(1);
    expect(cssLengthInches('2.54cm')).toBeCloseTo(1);
    expect(cssLengthInches('0')).toBe(0);
    for (const bad of ['12', '1em', '-1in', '1 in', 'calc(1in)', '', '1e3px']) expect({ bad, inches: cssLengthInches(bad) }).toEqual({ bad, inches: null });
  });

  it('pdf_margin: one length or four (top right bottom left)', () => {
    expect(parsePdfMargin('1in')).toEqual({ top: 1, right: 1, bottom: 1, left: 1 });
    expect(parsePdfMargin('1in 0 2in 96px')).toEqual({ top: 1, right: 0, bottom: 2, left: 1 });
    expect(parsePdfMargin('1in 2in')).toBeNull();
    expect(pdfMarginProblem('1in 2in')).toMatch(/one CSS length for all sides or four/);
    expect(pdfMarginProblem('21in')).toBe('must be at most 20 in on each side');
    expect(pdfMarginProblem('20mm')).toBeNull();
  });

  it('pdf_width / pdf_height: a length from 1 in to 200 in', () => {
    expect(pdfSideProblem('100mm')).toBeNull();
    expect(pdfSideProblem('10mm')).toBe('must be from 1 in to 200 in (10mm is 0.39 in)');
    expect(pdfSideProblem('a4')).toMatch(/must be a CSS length/);
    expect(pdfSideProblem(100)).toMatch(/must be a CSS length/);
  });

  it('pdf_page_ranges: numbers and ranges from 1, in order', () => {
    for (const good of ['1', '1-3,5', '2-', ' 1 - 2 , 4 ']) expect({ good, problem: pageRangesProblem(good) }).toEqual({ good, problem: null });
    expect(pageRangesProblem('0-2')).toMatch(/0-2 starts before page 1/);
    expect(pageRangesProblem('3-1')).toMatch(/3-1 ends before it starts/);
    for (const bad of ['', 'a', '1;2', '-3', '1,,2'])
      expect({ bad, problem: pageRangesProblem(bad) }).toEqual({ bad, problem: expect.stringMatching(/counted from 1/) });
  });

  it('templates: bounded in bytes of UTF-8', () => {
    expect(pdfTemplateProblem('<span class="pageNumber"></span>')).toBeNull();
    expect(pdfTemplateProblem('é'.repeat(8193))).toBe('must be at most 16384 bytes');
  });

  it('every PDF control’s example (OpenAPI shows it; GET /render’s declared parameters are sent with it) keeps its own rule', () => {
    const rows = (CAPTURE_OPTION_TABLE as readonly CaptureOptionSpec[]).flatMap((row) =>
      row.type.kind === 'pdfText' ? [{ wire: row.wire, rule: row.type.rule, example: row.example }] : [],
    );
    expect(rows.length).toBeGreaterThan(4);
    for (const { wire, rule, example } of rows) expect({ wire, problem: pdfTextProblem(rule, example) }).toEqual({ wire, problem: null });
  });
});
