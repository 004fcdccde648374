import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { Injectable } from '@nestjs/common';
import { errorMessage } from '../../../shared/domain/error-message';
import { UrlPolicy } from '../../../shared/url-policy';
import { WebhookSender } from '../application/ports';

/**
 * Deliveries leave through the same URL policy as captures: the host is resolved once, every address checked
 * (private, loopback, link-local and metadata addresses refused unless ALLOW_PRIVATE_NETWORKS or the origin is
 * allowlisted), and the connection made to exactly an address that was checked — the socket's lookup is pinned
 * to it — so a DNS answer that changes to a private address between the check and the connection cannot be used
 * (the rebinding the capture's egress proxy defends against, done here without a proxy).
 */
@Injectable()
export class HttpWebhookSender extends WebhookSender {
  constructor(private readonly policy: UrlPolicy) {
    super();
  }

  async post(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<{ statusCode: number | null; error: string | null }> {
    const verdict = await this.policy.check(url);
    if (!verdict.allowed) return { statusCode: null, error: `blocked by URL policy: ${verdict.reason}` };
    const target = verdict.url;
    const pinned = verdict.addresses[0];
    const options: RequestOptions = {
      method: 'POST',
      headers: {
        // JSON unless the caller says otherwise (an ntfy message is text, with its headers beside it).
        'content-type': 'application/json',
        ...headers,
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': 'screenshot-service-webhooks/1',
      },
      timeout: timeoutMs,
      // Checked addresses only: the socket never resolves the name again.
      ...(pinned ? { lookup: pinnedLookup(pinned) } : {}),
    };
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve) => {
      let settled = false;
      const done = (result: { statusCode: number | null; error: string | null }) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        resolve(result);
      };
      // The whole exchange, not only idle socket time, must fit in the limit.
      const deadline = setTimeout(() => {
        req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      const req = send(target, options, (res) => {
        // The answer's body is not used: read and dropped so the socket is released.
        res.resume();
        res.on('end', () => done({ statusCode: res.statusCode ?? null, error: null }));
        res.on('error', (err) => done({ statusCode: res.statusCode ?? null, error: errorMessage(err) }));
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
      req.on('error', (err) => done({ statusCode: null, error: errorMessage(err) }));
      req.end(body);
    });
  }
}

/** A lookup that answers with the one address the policy checked, in whichever form the socket asks for. */
function pinnedLookup(address: string): LookupFunction {
  const family = address.includes(':') ? 6 : 4;
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;
}
