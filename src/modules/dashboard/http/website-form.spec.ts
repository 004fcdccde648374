import type { WebsiteProps } from '../../websites/domain/website';
import {
  CAPTURE_REQUEST_FIELDS,
  errorsByField,
  formToBody,
  maskSecrets,
  queryOf,
  typedSecrets,
  unmaskSecrets,
  WEBSITE_FIELDS,
  websiteValues,
} from './website-form';

const form = (entries: Array<[string, string]>) => new URLSearchParams(entries);

describe('website form ↔ API body', () => {
  it('turns the website form into the body of POST /websites, options under capture_options', () => {
    const { body, errors } = formToBody(
      WEBSITE_FIELDS,
      form([
        ['name', 'Acme'],
        ['url', 'https://acme.test/'],
        ['viewport_width', ' 1024 '],
        ['viewport_height', '7e2'],
        ['status', 'paused'],
        ['format', 'pdf'],
        ['pdf_landscape', 'true'],
        ['pdf_print_background', 'false'],
        ['omit_background', ''],
        ['block_ads', 'on'],
        ['block_resources', 'font'],
        ['block_resources', 'media'],
        ['clip.x', '0'],
        ['clip.width', '300'],
        ['headers', 'X-One: a;b=c\n\nX-Two:  two '],
        ['cookies', 'sid=abc=def; Domain=acme.test; Path=/; Secure; HttpOnly; SameSite=Lax'],
        ['http_auth.username', 'u'],
        ['http_auth.password', ''],
      ]),
      true,
    );
    expect(errors).toEqual([]);
    expect(body).toEqual({
      name: 'Acme',
      url: 'https://acme.test/',
      viewport_width: 1024,
      viewport_height: '7e2', // not a whole number as typed: the API's rule names it
      full_page: false, // an unchecked box is false on the website form
      status: 'paused',
      capture_options: {
        format: 'pdf',
        pdf_landscape: true,
        pdf_print_background: false,
        block_ads: true,
        block_resources: ['font', 'media'],
        clip: { x: 0, width: 300 },
        headers: { 'X-One': 'a;b=c', 'X-Two': 'two' },
        cookies: [{ name: 'sid', value: 'abc=def', domain: 'acme.test', path: '/', secure: true, http_only: true, same_site: 'Lax' }],
        http_auth: { username: 'u', password: '' },
      },
      change_ignore_selectors: [], // an empty list is sent, so an edit can clear it
      ignore_text: [],
      alert_when: {}, // sent whole: PUT replaces it, so emptied fields are conditions taken away
    });
  });

  it('required fields are sent empty (the API says they should not be), optional ones left out', () => {
    expect(formToBody(WEBSITE_FIELDS, form([]), true).body).toEqual({
      name: '',
      url: '',
      full_page: false,
      capture_options: {},
      change_ignore_selectors: [],
      ignore_text: [],
      alert_when: {},
    });
    expect(formToBody(CAPTURE_REQUEST_FIELDS, form([['full_page', '']]), false).body).toEqual({});
  });

  it('a field the edit form must be able to clear sends its empty value; one more website field is one entry', () => {
    const fields = [...WEBSITE_FIELDS, { name: 'change_ignore_selectors', label: 'Ignore', kind: 'lines', section: 'website', emptyValue: [] } as const];
    expect(formToBody(fields, form([]), true).body.change_ignore_selectors).toEqual([]);
    expect(formToBody(fields, form([['change_ignore_selectors', '.ad\n\n #clock ']]), true).body.change_ignore_selectors).toEqual(['.ad', '#clock']);
  });

  it('secret text it cannot read is an error of its field, not a guess', () => {
    const { body, errors } = formToBody(
      WEBSITE_FIELDS,
      form([
        ['headers', 'no colon here'],
        ['cookies', 'a=1; Colour=blue'],
      ]),
      true,
    );
    expect(errors).toEqual([
      { field: 'headers', message: 'headers: line 1: write a header as "Name: value"' },
      { field: 'cookies', message: 'cookies: line 1: unknown cookie attribute "Colour" (Domain, Path, Secure, HttpOnly, SameSite)' },
    ]);
    expect(body.capture_options).toEqual({});
  });

  it("puts each of the API's errors beside the field it names", () => {
    const errors = errorsByField(
      WEBSITE_FIELDS,
      [
        { field: 'capture_options.clip.x', message: 'x must not be less than 0' },
        { field: 'capture_options.cookies[1].name', message: 'cookies[1].name must not be empty' },
        { field: 'viewport_width', message: 'viewport_width must not be less than 320' },
        { field: 'body', message: 'body must be a JSON object' },
      ],
      true,
    );
    expect([...errors]).toEqual([
      ['clip', ['X of the rectangle to capture must be at least 0.']],
      ['cookies', ['Cookie 2: the name must not be empty.']],
      ['viewport_width', ['Viewport width must be at least 320.']],
      ['', ['Body must be a JSON object.']],
    ]);
  });

  it('a saved website reads back into the same body, its secrets as ********', () => {
    const website = {
      id: 1,
      accountId: 1,
      name: 'Acme',
      url: 'https://acme.test/',
      viewportWidth: 1280,
      viewportHeight: 800,
      fullPage: true,
      status: 'active',
      captureOptions: {
        format: 'jpeg',
        quality: 70,
        blockResources: ['image'],
        clip: { x: 1, y: 2, width: 3, height: 4 },
        failOnStatus: [404, 500],
        timeoutMs: 5000,
        secrets: { headers: { 'X-Key': 'k' }, cookies: [{ name: 'sid', value: 'v', path: '/', httpOnly: true }], httpAuth: { username: 'u', password: 'p' } },
      },
      changeThreshold: 0.001,
      changeIgnoreSelectors: [],
      alertWhen: { text_contains: 'In stock', text_only: true },
      ignoreText: ['^Updated \\d+'],
      lastScreenshotAt: null,
      createdAt: new Date(),
      updatedAt: new Date(),
    } as WebsiteProps;
    const values = websiteValues(website);
    expect(values.toString()).not.toMatch(/=k\b|=v\b|=u\b|=p\b/);
    expect(formToBody(WEBSITE_FIELDS, values, true).body).toEqual({
      name: 'Acme',
      url: 'https://acme.test/',
      viewport_width: 1280,
      viewport_height: 800,
      full_page: true,
      status: 'active',
      capture_options: {
        format: 'jpeg',
        quality: 70,
        block_resources: ['image'],
        clip: { x: 1, y: 2, width: 3, height: 4 },
        fail_on_status: [404, 500],
        timeout_ms: 5000,
        headers: { 'X-Key': '********' },
        cookies: [{ name: 'sid', value: '********', path: '/', http_only: true }],
        http_auth: { username: '********', password: '********' },
      },
      change_threshold: 0.001,
      change_ignore_selectors: [],
      ignore_text: ['^Updated \\d+'],
      alert_when: { text_contains: 'In stock', text_only: true },
    });
  });

  it('fail on HTTP status: "all" is true, codes become a list, empty is not set, anything else goes to the API as typed', () => {
    const body = (text: string) =>
      (formToBody(WEBSITE_FIELDS, form([['fail_on_status', text]]), true).body.capture_options as Record<string, unknown>).fail_on_status;
    expect(body('all')).toBe(true);
    expect(body(' 404, 500 410 ')).toEqual([404, 500, 410]);
    expect(body('')).toBeUndefined();
    expect(body('404s')).toBe('404s');
    const saved = { captureOptions: { failOnStatus: true }, changeIgnoreSelectors: [], alertWhen: {} } as unknown as WebsiteProps;
    expect(websiteValues(saved).get('fail_on_status')).toBe('all');
  });

  it('scripts: one textarea, several scripts split on a line // ---, and saved scripts read back the same', () => {
    const body = (text: string) => (formToBody(WEBSITE_FIELDS, form([['scripts', text]]), true).body.capture_options as Record<string, unknown>).scripts;
    expect(body('document.title = "a" // --- not a separator')).toEqual(['document.title = "a" // --- not a separator']);
    expect(body('a()\n// ---\n\nb()\n  //---  \nc()')).toEqual(['a()', 'b()', 'c()']);
    expect(body(' \n// ---\n ')).toBeUndefined();
    const saved = { captureOptions: { scripts: ['a()', 'await b()'] }, changeIgnoreSelectors: [], alertWhen: {} } as unknown as WebsiteProps;
    const values = websiteValues(saved);
    expect(values.get('scripts')).toBe('a()\n// ---\nawait b()');
    expect((formToBody(WEBSITE_FIELDS, values, true).body.capture_options as Record<string, unknown>).scripts).toEqual(['a()', 'await b()']);
  });

  it('typed secrets shown again are masked, and the carried text puts them back by name', () => {
    const typed = form([
      ['headers', 'X-A: one;two\nX-B: ********'],
      ['cookies', 'sid=abc; Path=/\nother=xyz'],
      ['http_auth.username', 'me'],
      ['http_auth.password', 'pw'],
      ['name', 'kept as typed'],
    ]);
    const shown = maskSecrets(typed);
    expect(shown.get('headers')).toBe('X-A: ********\nX-B: ********');
    expect(shown.get('cookies')).toBe('sid=********; Path=/\nother=********');
    expect([shown.get('http_auth.username'), shown.get('http_auth.password'), shown.get('name')]).toEqual(['********', '********', 'kept as typed']);

    // Sent back with one header renamed and a cookie changed: those are the user's, the rest come from the carry.
    const sentBack = new URLSearchParams(shown);
    sentBack.set('headers', 'X-A: ********\nX-C: ********');
    sentBack.set('cookies', 'sid=********; Path=/\nother=new');
    const restored = unmaskSecrets(sentBack, typedSecrets(typed)!);
    expect(restored.get('headers')).toBe('X-A: one;two\nX-C: ********');
    expect(restored.get('cookies')).toBe('sid=abc; Path=/\nother=new');
    expect([restored.get('http_auth.username'), restored.get('http_auth.password')]).toEqual(['me', 'pw']);
  });

  it('a page address keeps only what was filled in', () => {
    expect(
      queryOf(
        form([
          ['url', 'https://a.test/'],
          ['format', ''],
          ['block_resources', 'font'],
        ]),
      ).toString(),
    ).toBe('url=https%3A%2F%2Fa.test%2F&block_resources=font');
  });

  it('a page address never holds a secret: headers, cookies, http_auth and proxy are left out', () => {
    expect(
      queryOf(
        form([
          ['url', 'https://a.test/'],
          ['headers', 'Authorization: Bearer s3cret'],
          ['cookies', 'sid=s3cret'],
          ['http_auth.username', 'me'],
          ['http_auth.password', 's3cret'],
          ['proxy', 'http://user:s3cret@proxy.test:8080'],
          ['proxy_pool', 'eu'],
          ['delay_ms', '100'],
        ]),
      ).toString(),
    ).toBe('url=https%3A%2F%2Fa.test%2F&proxy_pool=eu&delay_ms=100');
  });
});
