import { outputConflicts, pageOptionConflicts, resolveOutput } from './capture-option-rules';

describe('resolveOutput: the request over the website, then the defaults', () => {
  it('png by default, with nothing that does not apply to it', () => {
    expect(resolveOutput({}, {})).toEqual({ format: 'png', quality: null, pdf: null, omitBackground: false });
  });

  it('jpeg and webp get quality 80 unless set; the request’s quality wins over the website’s', () => {
    expect(resolveOutput({ format: 'jpeg' }, {})).toMatchObject({ format: 'jpeg', quality: 80 });
    expect(resolveOutput({ quality: 20 }, { format: 'webp', quality: 60 })).toMatchObject({ format: 'webp', quality: 20 });
    expect(resolveOutput({}, { format: 'webp', quality: 60 })).toMatchObject({ format: 'webp', quality: 60 });
  });

  it('a request that changes the format drops the website’s options for the other one', () => {
    expect(resolveOutput({ format: 'png' }, { format: 'jpeg', quality: 30 })).toEqual({ format: 'png', quality: null, pdf: null, omitBackground: false });
  });

  it('pdf: a4 portrait with backgrounds unless set', () => {
    expect(resolveOutput({ format: 'pdf' }, {}).pdf).toEqual({ paper: 'a4', landscape: false, printBackground: true });
    expect(resolveOutput({ pdfLandscape: true }, { format: 'pdf', pdfPaper: 'legal' }).pdf).toEqual({ paper: 'legal', landscape: true, printBackground: true });
  });

  it('omit_background only where there is alpha', () => {
    expect(resolveOutput({ omitBackground: true }, {}).omitBackground).toBe(true);
    expect(resolveOutput({ format: 'webp', omitBackground: true }, {}).omitBackground).toBe(true);
  });
});

describe('outputConflicts: options that do not apply to the format the capture ends up with', () => {
  it('none for consistent choices', () => {
    expect(outputConflicts({ format: 'jpeg', quality: 10 })).toEqual([]);
    expect(outputConflicts({ format: 'pdf', pdfPaper: 'a3', pdfLandscape: true, pdfPrintBackground: false })).toEqual([]);
    expect(outputConflicts({ omitBackground: false, format: 'jpeg' })).toEqual([]);
    expect(outputConflicts({ quality: 95 }, { format: 'webp', quality: 60 })).toEqual([]);
    expect(outputConflicts({ format: 'png' }, { format: 'jpeg', quality: 30 })).toEqual([]);
  });

  it('names each field as the API spells it', () => {
    expect(outputConflicts({ quality: 80 })).toEqual([{ field: 'quality', message: 'quality applies only to jpeg and webp, not png' }]);
    expect(outputConflicts({ pdfPaper: 'a4', pdfLandscape: false }, { format: 'jpeg' }).map((c) => c.field)).toEqual(['pdf_paper', 'pdf_landscape']);
    expect(outputConflicts({ format: 'pdf', omitBackground: true })).toEqual([
      { field: 'omit_background', message: 'omit_background applies only to png and webp, not pdf' },
    ]);
  });

  it('a request without a format is checked against the website’s format and options', () => {
    expect(outputConflicts({}, { format: 'jpeg', omitBackground: true }).map((c) => c.field)).toEqual(['omit_background']);
    expect(outputConflicts({ format: 'pdf', pdfPrintBackground: true }, { format: 'jpeg', quality: 10 })).toEqual([]);
  });
});

describe('videos (webm, gif): a scroll through the page', () => {
  it('resolve with the scroll duration, the request’s over the website’s, else 5 s', () => {
    expect(resolveOutput({ format: 'webm' }, {}).video).toEqual({ format: 'webm', scrollDurationMs: 5000 });
    expect(resolveOutput({ format: 'gif' }, { scrollDurationMs: 2000 }).video).toEqual({ format: 'gif', scrollDurationMs: 2000 });
    expect(resolveOutput({ format: 'gif', scrollDurationMs: 3000 }, { scrollDurationMs: 2000 }).video?.scrollDurationMs).toBe(3000);
    expect(resolveOutput({ format: 'png', scrollDurationMs: 3000 }, {})).not.toHaveProperty('video');
  });

  it('scroll_duration_ms applies to videos only; quality and omit_background not to videos', () => {
    expect(outputConflicts({ format: 'png', scrollDurationMs: 3000 })).toEqual([
      { field: 'scroll_duration_ms', message: 'scroll_duration_ms applies only to webm and gif, not png' },
    ]);
    expect(outputConflicts({ format: 'webm', quality: 50, omitBackground: true }).map((c) => c.field)).toEqual(['quality', 'omit_background']);
    expect(outputConflicts({ format: 'gif', scrollDurationMs: 3000 })).toEqual([]);
  });

  it('a video is of the whole page: no selector, clip or output size', () => {
    const context = { format: 'webm', viewportWidth: 1280, viewportSetByRequest: [] };
    expect(pageOptionConflicts({ selector: 'main' }, context)).toEqual([{ field: 'selector', message: 'selector applies to images, not webm' }]);
    expect(pageOptionConflicts({ outputWidth: 300 }, { ...context, format: 'gif' })).toEqual([
      { field: 'output_width', message: 'output_width applies to images, not gif' },
    ]);
  });
});
