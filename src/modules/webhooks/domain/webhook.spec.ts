import { createHmac } from 'node:crypto';
import { DEFAULT_RETRY_DELAYS_S, eventBody, eventForJob, messageId, newWebhookSecret, retryAfter, shouldDisable, signedHeaders } from './webhook';

describe('webhook rules', () => {
  const now = new Date('2030-01-01T00:00:00Z');

  it('a secret is whsec_ and the base64 of 32 random bytes, different every time', () => {
    const a = newWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(a);
  });

  it('signs "id.timestamp.body" with HMAC-SHA256 of the decoded secret, as v1,<base64>', () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const headers = signedHeaders(secret, 'msg_1', 1_700_000_000, '{"a":1}');
    const expected = createHmac('sha256', Buffer.alloc(32, 7)).update('msg_1.1700000000.{"a":1}').digest('base64');
    expect(headers).toEqual({ 'webhook-id': 'msg_1', 'webhook-timestamp': '1700000000', 'webhook-signature': `v1,${expected}` });
  });

  it('message ids are stable per (webhook, source, event) and differ otherwise', () => {
    expect(messageId(1, 'job-a', 'screenshot.succeeded')).toBe(messageId(1, 'job-a', 'screenshot.succeeded'));
    expect(messageId(2, 'job-a', 'screenshot.succeeded')).not.toBe(messageId(1, 'job-a', 'screenshot.succeeded'));
    expect(messageId(1, 'job-b', 'screenshot.succeeded')).toMatch(/^msg_[A-Za-z0-9_-]{27}$/);
  });

  it('retries after 5 s, 30 s, 2 min, 10 min, 1 h, 6 h, then gives up', () => {
    const at = (attempt: number) => retryAfter(attempt, DEFAULT_RETRY_DELAYS_S, now)?.getTime() ?? null;
    expect([1, 2, 3, 4, 5, 6].map((n) => (at(n)! - now.getTime()) / 1000)).toEqual([5, 30, 120, 600, 3600, 21600]);
    expect(at(7)).toBeNull();
  });

  it('an endpoint failing for three days is disabled, not before', () => {
    const day = 24 * 3600 * 1000;
    expect(shouldDisable(null, now)).toBe(false);
    expect(shouldDisable(new Date(now.getTime() - 3 * day + 1), now)).toBe(false);
    expect(shouldDisable(new Date(now.getTime() - 3 * day), now)).toBe(true);
  });

  it('names events after the job’s kind: its declared event per outcome; none for a kind without events or an unknown one', () => {
    // As the capture, scenario and render kinds declare them (screenshots/, scenarios/, renders/ application/*-job-kind.ts).
    const captures = { succeeded: 'screenshot.succeeded', failed: 'screenshot.failed' };
    const runs = { succeeded: 'execution.succeeded', failed: 'execution.failed' };
    expect(eventForJob(captures, 'succeeded')).toBe('screenshot.succeeded');
    expect(eventForJob(runs, 'failed')).toBe('execution.failed');
    expect(eventForJob(runs, 'succeeded')).toBe('execution.succeeded');
    expect(eventForJob(null, 'succeeded')).toBeNull();
    expect(eventForJob(undefined, 'failed')).toBeNull();
    expect(eventForJob({ succeeded: 'video.done', failed: 'video.failed' }, 'succeeded')).toBeNull();
    expect(JSON.parse(eventBody('msg_1', 'screenshot.failed', now, { x: 1 }))).toEqual({
      id: 'msg_1',
      type: 'screenshot.failed',
      created_at: '2030-01-01T00:00:00.000Z',
      data: { x: 1 },
    });
  });
});
