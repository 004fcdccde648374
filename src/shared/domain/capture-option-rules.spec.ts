import { CAPTURE_OPTION_TABLE } from './capture-option-table';
import { formatsInWords, outputConflicts, pageOptionConflicts, resolveOutput } from './capture-option-rules';
import { OUTPUT_FORMATS } from './output-format';

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

/** A value each kind of option accepts (what the value is does not matter to the format rule, only that it is set). */
function sampleValue(kind: string): unknown {
  const samples: Record<string, unknown> = {
    boolean: true,
    integer: 1,
    number: 1,
    choice: 'a4',
    selector: '#main',
    clip: { x: 0, y: 0, width: 10, height: 10 },
    pdfText: '1cm',
  };
  if (!(kind in samples)) throw new Error(`no sample value for a format-limited option of kind ${kind}: add one here`);
  return samples[kind];
}

describe('the format rule comes from the table’s formats column', () => {
  const limited = CAPTURE_OPTION_TABLE.filter((spec) => spec.formats.length < OUTPUT_FORMATS.length);

  it('covers every format-limited option (quality, the pdf_* controls, omit_background, selector, clip, output size)', () => {
    expect(limited.map((spec) => spec.wire)).toEqual(
      expect.arrayContaining(['quality', 'pdf_paper', 'pdf_outline', 'omit_background', 'selector', 'clip', 'output_width', 'output_height']),
    );
  });

  for (const spec of limited) {
    const others = OUTPUT_FORMATS.filter((f) => !(spec.formats as readonly string[]).includes(f));
    it(`${spec.wire}: accepted with ${spec.formats.join(', ')}; refused with ${others.join(', ')}, one 422 wording for all`, () => {
      const value = sampleValue(spec.type.kind);
      for (const format of spec.formats) expect(outputConflicts({ format, [spec.key]: value })).toEqual([]);
      for (const format of others) {
        const hint = (spec as { formatsHint?: Record<string, string> }).formatsHint?.[format];
        expect(outputConflicts({ format, [spec.key]: value })).toEqual([
          { field: spec.wire, message: `${spec.wire} applies only to ${formatsInWords(spec.formats)}, not ${format}${hint ? ` (${hint})` : ''}` },
        ]);
        // The page rules do not say it a second time.
        expect(pageOptionConflicts({ [spec.key]: value }, { format, viewportWidth: 1280, viewportSetByRequest: [] })).toEqual([]);
      }
    });
  }

  it('the formats in words', () => {
    expect(formatsInWords(['pdf'])).toBe('pdf');
    expect(formatsInWords(['jpeg', 'webp'])).toBe('jpeg and webp');
    expect(formatsInWords(['png', 'jpeg', 'webp'])).toBe('images (png, jpeg and webp)');
  });

  it('a website’s saved selector still applies to a request for pdf (refused); its saved quality does not (set aside)', () => {
    expect(outputConflicts({ format: 'pdf' }, { selector: '#main', quality: 50 })).toEqual([
      { field: 'selector', message: 'selector applies only to images (png, jpeg and webp), not pdf' },
    ]);
    expect(outputConflicts({ format: 'pdf' }, { outputWidth: 300 })).toEqual([
      { field: 'output_width', message: 'output_width applies only to images (png, jpeg and webp), not pdf (choose the paper with pdf_paper)' },
    ]);
  });
});

describe('videos (webm, gif): a scroll through the page', () => {
  it('resolve with the scroll duration, the request’s over the website’s, else 5 s', () => {
    expect(resolveOutput({ format: 'webm' }, {}).video).toEqual({ format: 'webm', scrollDurationMs: 5000 });
    expect(resolveOutput({ format: 'gif' }, { scrollDurationMs: 2000 }).video).toEqual({ format: 'gif', scrollDurationMs: 2000 });
    expect(resolveOutput({ format: 'gif', scrollDurationMs: 3000 }, { scrollDurationMs: 2000 }).video?.scrollDurationMs).toBe(3000);
    expect(resolveOutput({ format: 'png', scrollDurationMs: 3000 }, {})).not.toHaveProperty('video');
  });

  it('scroll_duration_ms applies to videos only; quality, omit_background, selector and output size not to videos', () => {
    expect(outputConflicts({ format: 'png', scrollDurationMs: 3000 })).toEqual([
      { field: 'scroll_duration_ms', message: 'scroll_duration_ms applies only to webm and gif, not png' },
    ]);
    expect(outputConflicts({ format: 'webm', quality: 50, omitBackground: true }).map((c) => c.field)).toEqual(['quality', 'omit_background']);
    expect(outputConflicts({ format: 'gif', scrollDurationMs: 3000 })).toEqual([]);
    expect(outputConflicts({ format: 'webm', selector: 'main' })).toEqual([
      { field: 'selector', message: 'selector applies only to images (png, jpeg and webp), not webm' },
    ]);
  });
});
