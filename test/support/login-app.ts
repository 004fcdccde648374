import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real login app for the saved-session tests (docs/sessions.md): a form with a CSRF token bound to a pre-login
 * cookie, a session cookie (HttpOnly) set on a good login, an account page that redirects to /login when logged out
 * and puts the session's user and the page's localStorage `api_token` in its title, and POST /expire-all, which
 * ends every session. It counts logins, and records the Cookie header every request to `localhost` carried (a
 * host the session's cookies never belong to).
 */
export class LoginApp {
  readonly user = 'alice';
  readonly password = 'S3cret-Login-Pa55';
  logins = 0;
  /** Every session cookie value it ever issued. */
  readonly issued: string[] = [];
  /** Cookie headers of requests made to the `localhost` name of this server (a third party to 127.0.0.1). */
  readonly thirdPartyCookies: string[] = [];
  private readonly csrf = new Map<string, string>();
  private readonly sessions = new Map<string, string>();
  private server!: Server;
  url = '';
  port = 0;

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    this.url = `http://127.0.0.1:${this.port}`;
    return this;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** Logs in over HTTP (no browser) and returns a valid session cookie's value. */
  newSession(): string {
    const sid = randomBytes(16).toString('hex');
    this.sessions.set(sid, this.user);
    this.issued.push(sid);
    return sid;
  }

  expireAll(): void {
    this.sessions.clear();
  }

  private cookies(req: IncomingMessage): Map<string, string> {
    return new Map(
      (req.headers.cookie ?? '')
        .split(';')
        .map((part) => part.trim().split('='))
        .filter((kv) => kv.length === 2)
        .map(([k, v]) => [k, v]),
    );
  }

  private html(res: ServerResponse, body: string, headers: Record<string, string | string[]> = {}): void {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...headers });
    res.end(body);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if ((req.headers.host ?? '').startsWith('localhost')) this.thirdPartyCookies.push(req.headers.cookie ?? '');
    if (path === '/pixel.png') {
      res.writeHead(204, { 'cache-control': 'no-store' });
      res.end();
      return;
    }
    const user = this.sessions.get(this.cookies(req).get('sid') ?? '');
    if (req.method === 'GET' && path === '/login') {
      const pre = randomBytes(8).toString('hex');
      const token = randomBytes(12).toString('hex');
      this.csrf.set(pre, token);
      this.html(
        res,
        `<!doctype html><title>Login</title><form method="post" action="/login">
<input type="hidden" name="csrf" value="${token}"><input id="user" name="user"><input id="password" name="password" type="password">
<button id="submit" type="submit">Sign in</button></form>`,
        { 'set-cookie': `pre=${pre}; Path=/; HttpOnly` },
      );
      return;
    }
    if (req.method === 'POST' && path === '/login') {
      let body = '';
      for await (const chunk of req) body += String(chunk);
      const form = new URLSearchParams(body);
      const pre = this.cookies(req).get('pre') ?? '';
      if (!this.csrf.has(pre) || this.csrf.get(pre) !== form.get('csrf')) {
        res.writeHead(403, { 'content-type': 'text/plain' });
        res.end('CSRF token mismatch');
        return;
      }
      this.csrf.delete(pre);
      if (form.get('user') !== this.user || form.get('password') !== this.password) {
        res.writeHead(302, { location: '/login' });
        res.end();
        return;
      }
      this.logins += 1;
      const sid = this.newSession();
      res.writeHead(302, { location: '/welcome', 'set-cookie': `sid=${sid}; Path=/; HttpOnly; SameSite=Lax` });
      res.end();
      return;
    }
    if (req.method === 'POST' && path === '/expire-all') {
      this.expireAll();
      res.writeHead(204);
      res.end();
      return;
    }
    if (!user) {
      res.writeHead(302, { location: '/login', 'cache-control': 'no-store' });
      res.end();
      return;
    }
    if (path === '/welcome') {
      // The app keeps an API token in localStorage once logged in (a session must keep it too).
      this.html(
        res,
        `<!doctype html><title>Welcome</title><script>localStorage.setItem('api_token', 'tok-${this.logins}')</script><div id="account-menu">Welcome</div>`,
      );
      return;
    }
    this.html(
      res,
      `<!doctype html><title>Account</title><div id="account-menu">${user}</div><img src="http://localhost:${this.port}/pixel.png" alt="">
<script>document.title = 'Account of ${user}, token ' + (localStorage.getItem('api_token') || 'none');</script>`,
    );
  }
}
