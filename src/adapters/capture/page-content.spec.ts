import { markdownOf } from './page-content';

describe('markdown of an article (turndown and our table rules)', () => {
  it('a plain table becomes a GitHub table, pipes in cells escaped; headings ATX; code fenced with its language', () => {
    const md = markdownOf({
      title: 'T',
      content:
        '<h2>Sub</h2><table><tr><th>a</th><th>b|c</th></tr><tr><td>1</td><td>2</td></tr></table>' + '<pre><code class="language-py">print(1)</code></pre>',
    });
    expect(md).toBe('# T\n\n## Sub\n\n| a | b\\|c |\n| --- | --- |\n| 1 | 2 |\n\n```py\nprint(1)\n```\n');
  });

  it('a table with merged cells or a nested table is kept as HTML', () => {
    const merged = '<table><tr><td colspan="2">wide</td></tr><tr><td>1</td><td>2</td></tr></table>';
    expect(markdownOf({ title: '', content: merged })).toContain('<td colspan="2">wide</td>');
    const nested = '<table><tr><td><table><tr><td>x</td></tr></table></td></tr></table>';
    expect(markdownOf({ title: '', content: nested })).toContain('<td><table><tbody><tr><td>x</td>');
  });

  it('the title once, when the article starts with it', () => {
    expect(markdownOf({ title: 'Same', content: '<h1>Same</h1><p>Body</p>' })).toBe('# Same\n\nBody\n');
  });
});
