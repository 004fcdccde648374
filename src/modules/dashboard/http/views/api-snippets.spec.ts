import { execFileSync } from 'node:child_process';
import { runInNewContext } from 'node:vm';
import { apiSnippets, jsString, literal, phpString, pythonString, renderQuery, shellQuote, websiteCurl } from './api-snippets';

/** Values a form may carry that break naive quoting in one language or another. */
const HOSTILE = [
  `it's "quoted"`,
  'a $HOME and ${x} and $(touch /tmp/pwned) and `id`',
  'back\\slash \\n \\\\ end\\',
  'line one\nline two\r\n\ttabbed',
  "php '; system('id'); //",
  'python """ \'\'\' {x} %s',
  'unicode é 日本 \u2028 \u2029 😀 \0 nul',
];

/** What JavaScript makes of an expression (evaluated in a context of its own, brought back as plain JSON values). */
function throughJs(source: string): unknown {
  return JSON.parse(JSON.stringify(runInNewContext(`(${source})`)));
}

/** What bash makes of a word (printf %s prints it exactly). */
function throughBash(word: string): string {
  return execFileSync('bash', ['-c', `printf %s ${word}`], { encoding: 'utf8' });
}

/** What Python makes of a literal. */
function throughPython(source: string): unknown {
  return JSON.parse(
    execFileSync('python3', ['-c', `import ast, json, sys; print(json.dumps(ast.literal_eval(sys.stdin.read())))`], { input: source, encoding: 'utf8' }),
  );
}

/** PHP single-quoted strings have two escapes, \\ and \' (the language's rule; no PHP on this machine to ask). */
function throughPhp(source: string): string {
  const match = /^'((?:[^'\\]|\\.)*)'$/s.exec(source);
  if (!match) throw new Error(`not one PHP single-quoted string: ${source}`);
  return match[1].replace(/\\([\\'])|\\/g, (all: string, escaped?: string) => escaped ?? all);
}

describe('api snippets: quoting', () => {
  it.each(HOSTILE)('keeps %j exactly in a shell word, a JS, Python and PHP string', (value) => {
    if (!value.includes('\0')) expect(throughBash(shellQuote(value))).toBe(value); // a shell argument cannot hold NUL
    expect(throughJs(jsString(value))).toBe(value);
    expect(throughPython(pythonString(value))).toBe(value);
    expect(throughPhp(phpString(value))).toBe(value);
  });

  it('turns a whole request body into equal JS and Python literals', () => {
    const body = { url: HOSTILE[0], full_page: true, quality: 80, hide_selectors: HOSTILE.slice(1, 3), headers: { 'X-A': HOSTILE[3] }, clip: null, empty: {} };
    expect(throughJs(literal(body, 'js'))).toEqual(body);
    expect(throughPython(literal(body, 'python'))).toEqual(body);
    expect(literal({}, 'php')).toBe('new stdClass()');
    expect(literal({ a: [true, null, 1.5, "'"] }, 'php')).toBe(`['a' => [true, null, 1.5, '\\'']]`);
  });
});

describe('api snippets: the four languages', () => {
  const origin = 'https://shots.example.com';
  const body = { full_page: true, viewport_width: 390, wait_for_selector: `a[title="it's $x"]`, css: 'body {\n  color: red; }\\' };

  it('renders a URL: every snippet carries exactly the options chosen', () => {
    const s = apiSnippets(origin, { kind: 'render', url: 'https://example.com/?q=$x' }, body);

    const query = new URLSearchParams(s.curl.match(/render\?([^"]*)"/)![1]);
    expect(Object.fromEntries(query)).toEqual({
      url: 'https://example.com/?q=$x',
      full_page: 'true',
      viewport_width: '390',
      wait_for_selector: body.wait_for_selector,
      css: body.css,
    });
    expect(s.curl).toMatch(/ -o shot\.png$/);
    expect(s.node).toContain(`import { createClient, render } from '@screenshot-service/client';`);
    expect(throughJs(/render\(api, (.*)\);/.exec(s.node)![1])).toEqual({ url: 'https://example.com/?q=$x', ...body });
    expect(s.python).toContain('api.render("https://example.com/?q=$x", full_page=True, viewport_width=390, wait_for_selector=');
    expect(s.php).toContain(`$base = 'https://shots.example.com';`);
    expect(s.php).toContain(`'wait_for_selector' => 'a[title="it\\'s $x"]'`);
    for (const snippet of Object.values(s)) expect(snippet).not.toMatch(/sst_[A-Za-z0-9]{8}/);
  });

  it('compiles: the Node snippet parses as a module, the Python one as Python', () => {
    const s = apiSnippets(origin, { kind: 'render', url: HOSTILE[1] }, { css: HOSTILE.join('|'), headers: { [HOSTILE[0]]: HOSTILE[4] }, format: 'jpeg' });
    expect(s.curl).toMatch(/ -o shot\.jpg$/);
    // Top-level await and imports: checked as a module by Node's own parser (nothing is run).
    execFileSync('node', ['--input-type=module', '--check'], { input: s.node });
    execFileSync('python3', ['-c', 'import sys; compile(sys.stdin.read(), "shot.py", "exec")'], { input: s.python });
    const w = apiSnippets(origin, { kind: 'website', id: 7, name: 'Shop\n rm -rf /' }, { delay_ms: 500, hide_selectors: [HOSTILE[2]] });
    execFileSync('node', ['--input-type=module', '--check'], { input: w.node });
    execFileSync('python3', ['-c', 'import sys; compile(sys.stdin.read(), "shot.py", "exec")'], { input: w.python });
    expect(w.python).toContain('api.take_screenshot(7, delay_ms=500, hide_selectors=[');
    expect(w.curl.split('\n')[0]).toBe(`# Capture "Shop  rm -rf /" with these options (the website's saved options fill the rest)`);
  });

  it('keeps a hostile body in the website curl as one shell word that is the exact JSON', () => {
    const hostile = { css: HOSTILE.slice(0, 6).join('|') };
    const curl = websiteCurl(origin, { id: 3, name: 'x' }, hostile);
    const word = /-d ('(?:[^']|'\\'')*')$/s.exec(curl)![1];
    expect(JSON.parse(throughBash(word))).toEqual(hostile);
  });

  it('puts a URL with shell-special characters in single quotes', () => {
    const s = apiSnippets('http://host$(id)', { kind: 'render', url: 'https://example.com/' }, {});
    expect(throughBash(s.curl.split(' ')[5])).toBe(`http://host$(id)/render?${renderQuery('https://example.com/', {})}`);
  });
});
