import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UrlPolicy } from '../../../shared/url-policy';
import { HttpWebhookSender } from './http-webhook-sender';

/**
 * The webhook sender's egress guard on real sockets: a name that resolves to a private address is refused before
 * any connection; the connection goes to the address the policy checked, never to a second lookup's answer.
 */
describe('HttpWebhookSender (real sockets)', () => {
  let server: Server;
  let port: number;
  let hits = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits++;
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  beforeEach(() => (hits = 0));

  it('a name whose DNS answer is private (rebinding to 127.0.0.1, metadata) is refused and never connected to', async () => {
    for (const answer of ['127.0.0.1', '169.254.169.254', '10.1.2.3']) {
      const policy = new UrlPolicy({ allowPrivateNetworks: false, allowlist: [], resolve: async () => [answer] });
      const result = await new HttpWebhookSender(policy).post(`http://hooks.example.com:${port}/in`, '{}', {}, 2_000);
      expect(result).toEqual({ statusCode: null, error: expect.stringMatching(/^blocked by URL policy: url resolves to a (loopback|private|link-local)/) });
    }
    expect(hits).toBe(0);
  });

  it('connects to the checked address itself: the name is not looked up again by the socket', async () => {
    let lookups = 0;
    const policy = new UrlPolicy({ allowPrivateNetworks: false, allowlist: [], resolve: async () => (lookups++, ['127.0.0.1']) });
    // What the policy returns for a public name, forced here: the answer it checked is the only one dialled.
    jest.spyOn(policy, 'check').mockImplementation(async (raw) => ({ allowed: true, url: new URL(raw), addresses: ['127.0.0.1'] }));
    const result = await new HttpWebhookSender(policy).post(`http://no-such-host.invalid:${port}/in`, '{"a":1}', { 'webhook-id': 'msg_1' }, 2_000);
    expect(result).toEqual({ statusCode: 204, error: null });
    expect(hits).toBe(1);
    expect(lookups).toBe(0); // .invalid never resolves: the socket really used the pinned address
  });

  it('an endpoint that does not answer in time is an error, not a hang', async () => {
    const silent = createServer(() => undefined); // accepts, never answers
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    try {
      const policy = new UrlPolicy({ allowPrivateNetworks: true, allowlist: [] });
      const started = Date.now();
      const result = await new HttpWebhookSender(policy).post(`http://127.0.0.1:${(silent.address() as AddressInfo).port}/`, '{}', {}, 300);
      expect(result).toEqual({ statusCode: null, error: 'no answer within 0.3 s' });
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});
