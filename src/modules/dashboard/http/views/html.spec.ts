import { badge, escapeHtml, Html, html, utcTime } from './html';

/**
 * The dashboard's only defence against markup injection: every value a template interpolates is escaped
 * unless it is already Html.
 *
 * The tag is used here under another name on purpose: Prettier reformats templates tagged `html` (self-closing
 * tags, reflowed lines, as it did to the views), which would change the very strings these cases compare.
 */
const h = html;

const HOSTILE = `<img src=x onerror=alert(1)> "Bob's" & co`;
const ESCAPED = '&lt;img src=x onerror=alert(1)&gt; &quot;Bob&#39;s&quot; &amp; co';

describe('escapeHtml', () => {
  it('escapes the five characters that can end text or an attribute value', () => {
    expect(escapeHtml(`& < > " '`)).toBe('&amp; &lt; &gt; &quot; &#39;');
    expect(escapeHtml(HOSTILE)).toBe(ESCAPED);
  });

  it('escapes an ampersand once, so an entity typed by a user shows as typed', () => {
    expect(escapeHtml('&amp; &#39; &lt;')).toBe('&amp;amp; &amp;#39; &amp;lt;');
  });

  it('leaves everything else alone', () => {
    const plain = 'Ünïcödé / path?a=1 `backtick` = {x} \u2028 \\';
    expect(escapeHtml(plain)).toBe(plain);
    expect(escapeHtml('')).toBe('');
  });
});

describe('html', () => {
  it('returns Html, whose text is the template with its values filled in', () => {
    const page = h`<p>${'hello'}</p>`;
    expect(page).toBeInstanceOf(Html);
    expect(page.toString()).toBe('<p>hello</p>');
    expect(String(page)).toBe('<p>hello</p>');
  });

  it('escapes an interpolated string in text and in attribute values', () => {
    expect(h`<span title="${HOSTILE}">${HOSTILE}</span>`.toString()).toBe(`<span title="${ESCAPED}">${ESCAPED}</span>`);
  });

  it('a quote cannot break out of an attribute, double or single', () => {
    const out = h`<a href="${'" onclick="x'}" data-x='${"' onclick='x"}'>a</a>`.toString();
    expect(out).toBe(`<a href="&quot; onclick=&quot;x" data-x='&#39; onclick=&#39;x'>a</a>`);
  });

  it('a script or closing tag in a value stays text', () => {
    expect(h`<td>${'</td><script>alert(1)</script>'}</td>`.toString()).toBe('<td>&lt;/td&gt;&lt;script&gt;alert(1)&lt;/script&gt;</td>');
  });

  it('inserts Html as it is: trusted fragments compose without being escaped twice', () => {
    const inner = h`<b>${HOSTILE}</b>`;
    expect(h`<p>${inner}</p>`.toString()).toBe(`<p><b>${ESCAPED}</b></p>`);
  });

  it('does not trust a string that merely looks like markup, nor an object with a toString', () => {
    const impostor = { toString: () => '<b>x</b>' };
    expect(h`<p>${'<b>x</b>'}</p>`.toString()).toBe('<p>&lt;b&gt;x&lt;/b&gt;</p>');
    expect(h`<p>${impostor}</p>`.toString()).not.toContain('<b>');
  });

  it('joins a list, escaping each string and keeping each Html, nested lists too', () => {
    const items = ['<a>', h`<li>${'&'}</li>`, ['"', h`<br>`]];
    expect(h`<ul>${items}</ul>`.toString()).toBe('<ul>&lt;a&gt;<li>&amp;</li>&quot;<br></ul>');
    expect(h`<ul>${[]}</ul>`.toString()).toBe('<ul></ul>');
  });

  it('renders null, undefined and false as nothing, so a `condition && html` fragment works', () => {
    expect(h`[${null}|${undefined}|${false}]`.toString()).toBe('[||]');
    const shown = false as boolean;
    expect(h`<p>${shown && h`<em>x</em>`}</p>`.toString()).toBe('<p></p>');
  });

  it('renders numbers, true and 0 as their JSON text', () => {
    expect(h`${0} ${42} ${-1.5} ${true}`.toString()).toBe('0 42 -1.5 true');
  });

  it('keeps the literal parts as written, values at their places', () => {
    expect(h``.toString()).toBe('');
    expect(h`${'a'}${'b'}${'c'}`.toString()).toBe('abc');
    expect(h`&nbsp;[${'x'}]`.toString()).toBe('&nbsp;[x]');
  });
});

describe('utcTime', () => {
  it('shows minutes in UTC in a <time> carrying the exact instant', () => {
    const at = new Date('2026-11-22T07:30:45.123Z');
    expect(utcTime(at).toString()).toBe('<time datetime="2026-11-22T07:30:45.123Z">2026-11-22 07:30 UTC</time>');
  });

  it('shows a dash, or the given word (escaped), for no date', () => {
    expect(utcTime(null).toString()).toBe('—');
    expect(utcTime(undefined).toString()).toBe('—');
    expect(utcTime(null, 'never').toString()).toBe('never');
    expect(utcTime(null, '<never>').toString()).toBe('&lt;never&gt;');
  });
});

describe('badge', () => {
  it('shows the status word in a badge whose class names it', () => {
    expect(badge('active').toString()).toBe('<span class="badge badge-active">active</span>');
    expect(badge('timed_out').toString()).toBe('<span class="badge badge-timed_out">timed_out</span>');
  });

  it('keeps only a-z and _ in the class, and escapes the word', () => {
    expect(badge('"><script>').toString()).toBe('<span class="badge badge-script">&quot;&gt;&lt;script&gt;</span>');
    expect(badge('Failed 2').toString()).toBe('<span class="badge badge-ailed">Failed 2</span>');
  });
});
