import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * HTTP framing the README's error table promises (issue 27): an early answer to an unread upload does not
 * wedge its keep-alive connection, 414 for a long path segment, RFC 9112's Host rules with the error body,
 * pagination links that never copy the request's authority, unknown routes and QUERY as 404. Raw sockets
 * wherever an HTTP client would normalise the request.
 */

interface RawResponse {
  status: number;
  head: string;
  body: string;
}

/** Splits the responses a connection carried (each with a Content-Length or chunked body). */
function parseResponses(bytes: Buffer): RawResponse[] {
  const responses: RawResponse[] = [];
  let text = bytes.toString('latin1');
  while (text.startsWith('HTTP/1.1 ')) {
    const end = text.indexOf('\r\n\r\n');
    if (end === -1) break;
    const head = text.slice(0, end).toLowerCase();
    let rest = text.slice(end + 4);
    let body = '';
    const length = /content-length: (\d+)/.exec(head);
    if (length) {
      body = rest.slice(0, Number(length[1]));
      rest = rest.slice(Number(length[1]));
    } else if (head.includes('transfer-encoding: chunked')) {
      for (;;) {
        const line = rest.indexOf('\r\n');
        const size = parseInt(rest.slice(0, line), 16);
        rest = rest.slice(line + 2);
        if (size === 0) {
          rest = rest.slice(2);
          break;
        }
        body += rest.slice(0, size);
        rest = rest.slice(size + 2);
      }
    }
    responses.push({ status: Number(head.split(' ')[1]), head, body });
    text = rest;
  }
  return responses;
}

/**
 * Writes `first`, then `second` on the same connection, and collects what comes back until the server closes
 * it, both responses arrived, or `withinMs` passed.
 */
function keepAliveExchange(url: string, first: Buffer, second: string, withinMs: number): Promise<{ responses: RawResponse[]; closed: boolean; ms: number }> {
  const { hostname, port } = new URL(url);
  const started = Date.now();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let closed = false;
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ responses: parseResponses(Buffer.concat(chunks)), closed, ms: Date.now() - started });
    };
    const socket = connect(Number(port), hostname, () => {
      socket.write(first);
      socket.write(second);
    });
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      if (parseResponses(Buffer.concat(chunks)).length === 2) finish();
    });
    // A reset after the server's answer is the client's own write meeting a closed socket: closed either way.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closed = true;
      finish();
    });
    const timer = setTimeout(finish, withinMs);
  });
}

function rawExchange(url: string, bytes: string): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => resolve(parseResponses(Buffer.concat(chunks))[0]));
    socket.setTimeout(5000, () => socket.destroy());
  });
}

const json = (r: RawResponse): unknown => JSON.parse(r.body);

describe('HTTP framing', () => {
  let t: TestApp;
  let alice: TestAccount;
  let free: TestAccount;
  let hostHeader: string;

  beforeAll(async () => {
    t = await startTestApp();
    alice = await t.createAccount({ plan: 'business' });
    free = await t.createAccount({ plan: 'free' });
    hostHeader = new URL(t.url).host;
  });
  afterAll(async () => t.close());

  describe('an early answer to a large upload on a keep-alive connection', () => {
    // ~4 MB of gzip that decodes to ~5.3 MB: the parser stops reading after 1 MiB of decoded JSON.
    const gzipped = gzipSync(JSON.stringify({ name: randomBytes(4 * 1024 * 1024).toString('base64') }));
    const upload = (auth: string) =>
      Buffer.concat([
        Buffer.from(
          `POST /websites HTTP/1.1\r\nHost: ${hostHeader}\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\n` +
            `Content-Encoding: gzip\r\nContent-Length: ${gzipped.length}\r\n\r\n`,
        ),
        gzipped,
      ]);
    const next = () => `GET /health HTTP/1.1\r\nHost: ${hostHeader}\r\n\r\n`;

    it.each([
      ['a wrong token: 401', () => 'Bearer sst_wrong', 401, 'unauthorized'],
      ['a Free plan: 403', () => free.auth.Authorization, 403, 'plan_no_api_access'],
      ['a valid token: 413', () => alice.auth.Authorization, 413, 'payload_too_large'],
    ])('%s, then the connection is closed (Connection: close), not left hanging', async (_name, auth, status, code) => {
      const { responses, closed, ms } = await keepAliveExchange(t.url, upload(auth()), next(), 10_000);
      expect(responses[0]?.status).toBe(status);
      expect(json(responses[0])).toMatchObject({ success: false, code });
      // The rest of the upload was never read: the server says so and closes, rather than keep the connection
      // alive with the next request stuck behind unread bytes.
      expect(responses[0].head).toContain('connection: close');
      expect(closed).toBe(true);
      expect(ms).toBeLessThan(5000);
    });

    it('over the minute limit: 429, then the connection is closed, not left hanging', async () => {
      const starter = await t.createAccount({ plan: 'starter' }); // 5 requests a minute
      let status = 0;
      for (let i = 0; i < 10 && status !== 429; i++) status = (await request(t.url).get('/test').set(starter.auth)).status;
      expect(status).toBe(429);
      const { responses, closed, ms } = await keepAliveExchange(t.url, upload(starter.auth.Authorization), next(), 10_000);
      expect(responses[0]?.status).toBe(429);
      expect(json(responses[0])).toMatchObject({ success: false, code: 'rate_limited' });
      expect(responses[0].head).toContain('connection: close');
      expect(closed).toBe(true);
      expect(ms).toBeLessThan(5000);
    });

    it('a small body answered 401 keeps the connection alive: the next request on it is answered', async () => {
      const body = gzipSync('{"name":"x"}');
      const first = Buffer.concat([
        Buffer.from(
          `POST /websites HTTP/1.1\r\nHost: ${hostHeader}\r\nAuthorization: Bearer sst_wrong\r\nContent-Type: application/json\r\n` +
            `Content-Encoding: gzip\r\nContent-Length: ${body.length}\r\n\r\n`,
        ),
        body,
      ]);
      const { responses } = await keepAliveExchange(t.url, first, next(), 5000);
      expect(responses.map((r) => r.status)).toEqual([401, 200]);
      expect(responses[0].head).not.toContain('connection: close');
    });
  });

  describe('414 uri_too_long', () => {
    it("a path segment over 2048 characters is 414 with the error body and the caller's headers; 2048 is still routed", async () => {
      for (const path of [`/websites/${'1'.repeat(2049)}`, `/websites/1/${'a'.repeat(2049)}`, `/${'a'.repeat(3000)}`]) {
        const res = await request(t.url).get(path).set(alice.auth);
        expect(res.status).toBe(414);
        expect(res.body).toEqual({ success: false, error: 'A path segment is longer than 2048 characters', code: 'uri_too_long' });
        expect(res.headers['x-ratelimit-limit']).toBeDefined();
      }
      const anonymous = await request(t.url)
        .get(`/websites/${'1'.repeat(2049)}`)
        .expect(414);
      expect(anonymous.body.code).toBe('uri_too_long');
      const res = await request(t.url)
        .get(`/websites/${'1'.repeat(2048)}`)
        .set(alice.auth)
        .expect(404);
      expect(res.body.code).toBe('not_found');
      await request(t.url)
        .get(`/websites?x=${'a'.repeat(3000)}`)
        .set(alice.auth)
        .expect(422);
    });
  });

  describe('Host (RFC 9112 §3.2)', () => {
    it('an HTTP/1.1 request without Host is 400 with the error body; HTTP/1.0 needs none', async () => {
      const res = await rawExchange(t.url, `GET /health HTTP/1.1\r\nConnection: close\r\n\r\n`);
      expect(res.status).toBe(400);
      expect(json(res)).toEqual({ success: false, error: 'An HTTP/1.1 request must have a Host header', code: 'bad_request' });
      expect(res.head).toContain('content-type: application/json');
      const old = await rawExchange(t.url, `GET /health HTTP/1.0\r\n\r\n`);
      expect(old.status).toBe(200);
    });

    it("two Host headers are 400, with the caller's headers when it presented a token", async () => {
      const res = await rawExchange(
        t.url,
        `GET /test HTTP/1.1\r\nHost: ${hostHeader}\r\nHost: other.example\r\nAuthorization: ${alice.auth.Authorization}\r\nConnection: close\r\n\r\n`,
      );
      expect(res.status).toBe(400);
      expect(json(res)).toEqual({ success: false, error: 'The request has more than one Host header', code: 'bad_request' });
      expect(res.head).toContain('x-ratelimit-limit');
    });

    it.each(['a/b?c#d', 'a b', 'evil.example:80@x', ''])('Host %j is 400', async (host) => {
      const res = await rawExchange(
        t.url,
        `GET /websites HTTP/1.1\r\nHost: ${host}\r\nAuthorization: ${alice.auth.Authorization}\r\nConnection: close\r\n\r\n`,
      );
      expect(res.status).toBe(400);
      expect(json(res)).toEqual({ success: false, error: expect.stringContaining('Host'), code: 'bad_request' });
    });
  });

  describe('pagination links', () => {
    it('an absolute-form request-target gives links on the Host with the path, not the target’s authority', async () => {
      const res = await rawExchange(
        t.url,
        `GET http://evil.example/websites?per_page=5 HTTP/1.1\r\nHost: ${hostHeader}\r\nAuthorization: ${alice.auth.Authorization}\r\nConnection: close\r\n\r\n`,
      );
      expect(res.status).toBe(200);
      const links = (json(res) as { links: Record<string, string | null> }).links;
      expect(links.first).toBe(`http://${hostHeader}/websites?per_page=5&page=1`);
      expect(JSON.stringify(links)).not.toContain('evil');
    });

    it('an origin-form target keeps its path and query', async () => {
      const res = await request(t.url).get('/websites?per_page=5').set(alice.auth).expect(200);
      expect(res.body.links.first).toBe(`http://${hostHeader}/websites?per_page=5&page=1`);
    });
  });

  describe('unknown routes and methods', () => {
    it('an unknown route is 404 whatever its body says (JSON fields, not JSON, too large)', async () => {
      const fields = await request(t.url).post('/no/such/route').set(alice.auth).send({ a: 1 }).expect(404);
      expect(fields.body).toEqual({ success: false, error: 'Route not found', code: 'not_found' });
      expect(fields.headers['x-ratelimit-limit']).toBeDefined();
      const notJson = await request(t.url).post('/no/such/route').set(alice.auth).set('Content-Type', 'application/json').send('{').expect(404);
      expect(notJson.body.code).toBe('not_found');
      const anonymous = await request(t.url).put('/no/such/route').send({ a: 1 }).expect(404);
      expect(anonymous.body).toEqual({ success: false, error: 'Route not found', code: 'not_found' });
    });

    it.each([
      ['without a body', ''],
      ['with a JSON body', 'Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}'],
    ])("QUERY (%s) is 404 in the API's own error body", async (_name, rest) => {
      const tail = rest === '' ? '\r\n' : rest;
      const res = await rawExchange(
        t.url,
        `QUERY /websites HTTP/1.1\r\nHost: ${hostHeader}\r\nAuthorization: ${alice.auth.Authorization}\r\nConnection: close\r\n${tail}`,
      );
      expect(res.status).toBe(404);
      expect(json(res)).toEqual({ success: false, error: 'Route not found', code: 'not_found' });
      expect(res.head).toContain('x-ratelimit-limit');
    });
  });
});
