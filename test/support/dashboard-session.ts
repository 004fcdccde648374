import request, { Response } from 'supertest';
import { binary } from './assertions';

/**
 * A minimal browser for the server-rendered dashboard over plain HTTP: it keeps the dashboard's cookies
 * (Path=/dashboard, so they are sent only to /dashboard/…, and a Max-Age=0 cookie is forgotten, as a browser
 * does), posts forms as application/x-www-form-urlencoded (repeated fields as `ids=1&ids=2`) and signs in
 * through the real form, CSRF cookie and all.
 */

export type FormFields = Record<string, string | number | Array<string | number>>;

export interface ParsedCookie {
  name: string;
  value: string;
  /** The attributes after the value, as sent (`Path=/dashboard`, `HttpOnly`, …). */
  attributes: string[];
  raw: string;
}

/** Every Set-Cookie header of a response, parsed. */
export function setCookies(res: Response): ParsedCookie[] {
  const header = res.headers['set-cookie'] as unknown as string[] | string | undefined;
  const lines = header === undefined ? [] : Array.isArray(header) ? header : [header];
  return lines.map((raw) => {
    const [pair, ...attributes] = raw.split(';').map((s) => s.trim());
    const eq = pair.indexOf('=');
    return { name: pair.slice(0, eq), value: decodeURIComponent(pair.slice(eq + 1)), attributes, raw };
  });
}

export function setCookieNamed(res: Response, name: string): ParsedCookie | undefined {
  const matches = setCookies(res).filter((c) => c.name === name);
  if (matches.length > 1) throw new Error(`${matches.length} Set-Cookie headers for ${name}`);
  return matches[0];
}

/** The value of the first hidden `_csrf` field of a page. */
export function csrfFieldOf(html: string): string {
  const match = /<input type="hidden" name="_csrf" value="([^"]*)">/.exec(html);
  if (!match) throw new Error(`no _csrf field on the page:\n${html.slice(0, 500)}`);
  return match[1];
}

export function formBody(fields: FormFields): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    for (const v of Array.isArray(value) ? value : [value]) params.append(name, String(v));
  }
  return params.toString();
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** Collect the body as a Buffer (images, ZIPs). */
  binary?: boolean;
}

export class DashboardClient {
  readonly cookies = new Map<string, string>();
  /** The signed-in session's CSRF token, once read from a page. */
  private token: string | null = null;

  constructor(
    readonly baseUrl: string,
    /** Sent with every request (e.g. X-Forwarded-For on an app that trusts a proxy). */
    readonly headers: Record<string, string> = {},
  ) {}

  /** A second client holding the same cookies now (an old copy of a cookie, a stolen cookie). */
  copy(): DashboardClient {
    const other = new DashboardClient(this.baseUrl, this.headers);
    for (const [k, v] of this.cookies) other.cookies.set(k, v);
    other.token = this.token;
    return other;
  }

  get sessionCookie(): string | undefined {
    return this.cookies.get('sst_session');
  }

  async get(path: string, options: RequestOptions = {}): Promise<Response> {
    return this.send(request(this.baseUrl).get(path), path, options);
  }

  /** A raw form post: exactly the fields given (no CSRF token added). */
  async post(path: string, fields: FormFields | string = {}, options: RequestOptions = {}): Promise<Response> {
    const body = typeof fields === 'string' ? fields : formBody(fields);
    return this.send(request(this.baseUrl).post(path).type('form').send(body), path, options);
  }

  /** A form post as the signed-in page would send it: the fields plus this session's `_csrf`. */
  async submit(path: string, fields: FormFields = {}, options: RequestOptions = {}): Promise<Response> {
    return this.post(path, { ...fields, _csrf: await this.csrf() }, options);
  }

  /** This session's CSRF token, as every signed-in page embeds it. */
  async csrf(): Promise<string> {
    if (this.token) return this.token;
    const page = await this.get('/dashboard');
    if (page.status !== 200) throw new Error(`GET /dashboard answered ${page.status}; not signed in?`);
    this.token = csrfFieldOf(page.text);
    return this.token;
  }

  /** GET /dashboard/login, then posts the form with its token (the real sign-in flow). Returns the POST's answer. */
  async signIn(email: string, password: string, extra: FormFields = {}): Promise<Response> {
    const form = await this.get('/dashboard/login');
    if (form.status !== 200) throw new Error(`GET /dashboard/login answered ${form.status}`);
    this.token = null;
    return this.post('/dashboard/login', { _csrf: csrfFieldOf(form.text), email, password, ...extra });
  }

  /** Signs in and fails loudly unless it worked. */
  async signInOk(email: string, password: string): Promise<this> {
    const res = await this.signIn(email, password);
    if (res.status !== 303 || !this.sessionCookie) throw new Error(`sign-in of ${email} answered ${res.status}: ${res.text.slice(0, 300)}`);
    return this;
  }

  private async send(req: request.Test, path: string, options: RequestOptions): Promise<Response> {
    for (const [k, v] of Object.entries({ ...this.headers, ...options.headers })) req.set(k, v);
    const cookie = path.startsWith('/dashboard') ? [...this.cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('; ') : '';
    if (cookie) req.set('Cookie', cookie);
    if (options.binary) req.buffer(true).parse(binary);
    const res = await req.redirects(0);
    for (const c of setCookies(res)) {
      if (c.attributes.some((a) => /^max-age=0$/i.test(a))) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    return res;
  }
}
