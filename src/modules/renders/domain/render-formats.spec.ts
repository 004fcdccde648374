import { parseRenderFormats } from './render-formats';

describe('a render’s formats', () => {
  it('one file format (else the first content format) and the content formats beside it', () => {
    expect(parseRenderFormats('png,markdown,metadata')).toEqual({ file: 'png', contents: ['markdown', 'metadata'] });
    expect(parseRenderFormats(['markdown', 'pdf'])).toEqual({ file: 'pdf', contents: ['markdown'] });
    expect(parseRenderFormats('metadata, text')).toEqual({ file: 'metadata', contents: ['text'] });
    expect(parseRenderFormats('jpeg')).toEqual({ file: 'jpeg', contents: [] });
  });

  it('refuses two files, repeats, unknown names and nothing', () => {
    expect(parseRenderFormats('png,pdf')).toEqual({ problem: "may name one of png, jpeg, webp, pdf, webm and gif (the render's file), not png and pdf" });
    expect(parseRenderFormats('text,text')).toEqual({ problem: 'names text twice' });
    expect(parseRenderFormats('png,docx')).toEqual({ problem: expect.stringContaining('"docx" is none of them') });
    expect(parseRenderFormats([])).toEqual({ problem: expect.stringContaining('must be a comma-separated list') });
    expect(parseRenderFormats(3)).toEqual({ problem: expect.stringContaining('must be a comma-separated list') });
  });
});
