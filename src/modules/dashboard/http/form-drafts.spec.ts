import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { SecretBox } from '../../../shared/secrets/secret-box';
import type { DashboardRequest } from './dashboard-request';
import { DRAFT_COOKIE, DRAFT_OWNER_COOKIE, formPageOf, keepDraft, keptFields, rememberDraftOwner, takeDraft, withSecretsFrom } from './form-drafts';
import { failedField } from './playground-captures';
import { formErrors } from './views/pages/website-form.page';

describe('form drafts (an expired session on submit)', () => {
  it('knows the page of each form that restores a draft, and no other', () => {
    expect(formPageOf('/dashboard/playground')).toBe('/dashboard/playground');
    expect(formPageOf('/dashboard/websites')).toBe('/dashboard/websites/new');
    expect(formPageOf('/dashboard/websites/12/edit')).toBe('/dashboard/websites/12/edit');
    expect(formPageOf('/dashboard/websites/12/screenshot')).toBe('/dashboard/websites/12/screenshot');
    expect(formPageOf('/dashboard/notifications')).toBe('/dashboard/notifications');
    expect(formPageOf('/dashboard/settings/api-keys')).toBeNull();
    expect(formPageOf('/dashboard/websites/12/delete')).toBeNull();
  });

  it('keeps what was typed but never a secret, the CSRF token or a hidden control', () => {
    const form = new URLSearchParams([
      ['_csrf', 'token'],
      ['_carry', 'sealed'],
      ['name', 'Shop'],
      ['url', 'https://example.com/'],
      ['headers', 'X-Key: 1'],
      ['cookies', 'sid=2'],
      ['http_auth.username', 'u'],
      ['http_auth.password', 'p'],
      ['proxy', 'http://user:pw@proxy:8080'],
      ['session_id', '4'],
      ['password', 'x'],
      ['api_key', 'k'],
      ['hide_selectors', '.a\n.b'],
      ['action', 'try'],
    ]);
    expect(keptFields(form)).toEqual([
      ['name', 'Shop'],
      ['url', 'https://example.com/'],
      ['hide_selectors', '.a\n.b'],
    ]);
  });

  it("a channel's webhook address is its secret; an e-mail address is not", () => {
    expect(keptFields(new URLSearchParams({ type: 'slack', target: 'https://hooks.slack.com/services/x', name: 'n' }))).toEqual([
      ['type', 'slack'],
      ['name', 'n'],
    ]);
    expect(keptFields(new URLSearchParams({ type: 'email', target: 'me@example.com' }))).toEqual([
      ['type', 'email'],
      ['target', 'me@example.com'],
    ]);
  });

  it("a restored edit form gets the page's own (masked) secrets back, so saving it keeps them", () => {
    const restored = withSecretsFrom(
      new URLSearchParams({ name: 'New name' }),
      new URLSearchParams({ name: 'Old', headers: 'X-Token: ********', _carry: 'x' }),
    );
    expect([...restored]).toEqual([
      ['name', 'New name'],
      ['headers', 'X-Token: ********'],
    ]);
  });
});

describe('a draft belongs to the account that typed it', () => {
  const box = new SecretBox(randomBytes(32));
  const ORIGIN = 'http://dash.test';
  /** A browser's cookie jar over fake requests and replies (Set-Cookie in, Cookie out; Max-Age=0 forgets). */
  function browser() {
    const jar = new Map<string, string>();
    const request = (method: string, url: string): DashboardRequest =>
      ({
        method,
        url,
        protocol: 'http',
        headers: { host: 'dash.test', origin: ORIGIN, cookie: [...jar].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('; ') },
      }) as unknown as DashboardRequest;
    const reply = () =>
      ({
        header(name: string, value: string) {
          if (name.toLowerCase() !== 'set-cookie') return this;
          const [pair, ...attributes] = value.split('; ');
          const eq = pair.indexOf('=');
          const cookie = pair.slice(0, eq);
          if (attributes.includes('Max-Age=0')) jar.delete(cookie);
          else jar.set(cookie, decodeURIComponent(pair.slice(eq + 1)));
          return this;
        },
      }) as unknown as FastifyReply;
    return {
      jar,
      signIn: (accountId: number) => rememberDraftOwner(reply(), request('POST', '/dashboard/login'), box, null, accountId),
      postExpired: (path: string, form: Record<string, string>) => keepDraft(reply(), request('POST', path), box, null, new URLSearchParams(form)),
      open: (page: string, accountId: number) => takeDraft(reply(), request('GET', page), box, null, page, accountId),
    };
  }

  it('comes back to the account that signed in on the browser and typed it', () => {
    const b = browser();
    b.signIn(7);
    expect(b.postExpired('/dashboard/playground', { url: 'https://example.com/', action: 'try' })).toEqual({ page: '/dashboard/playground' });
    b.signIn(7);
    expect(b.open('/dashboard/playground', 7)?.get('url')).toBe('https://example.com/');
    expect(b.jar.has(DRAFT_COOKIE)).toBe(false); // read once
  });

  it('is dropped, not restored, when another account signs in on the same browser', () => {
    const b = browser();
    b.signIn(7);
    expect(b.postExpired('/dashboard/websites', { name: 'Private name', url: 'https://example.com/' })).not.toBeNull();
    b.signIn(8);
    expect(b.open('/dashboard/websites/new', 8)).toBeNull();
    expect(b.jar.has(DRAFT_COOKIE)).toBe(false); // gone for good: account 7 signing in again gets nothing either
    b.signIn(7);
    expect(b.open('/dashboard/websites/new', 7)).toBeNull();
  });

  it('a draft for another page waits for it, still only for its account', () => {
    const b = browser();
    b.signIn(7);
    b.postExpired('/dashboard/notifications', { name: 'Ops', type: 'email', target: 'ops@example.com' });
    expect(b.open('/dashboard/playground', 7)).toBeNull();
    expect(b.jar.has(DRAFT_COOKIE)).toBe(true);
    expect(b.open('/dashboard/notifications', 7)?.get('target')).toBe('ops@example.com');
  });

  it('is not kept without a note of who signed in on the browser, nor with a forged one', () => {
    const b = browser();
    expect(b.postExpired('/dashboard/playground', { url: 'https://example.com/' })).toBeNull();
    b.jar.set(DRAFT_OWNER_COOKIE, 'draft-owner:7');
    expect(b.postExpired('/dashboard/playground', { url: 'https://example.com/' })).toBeNull();
    b.jar.set(DRAFT_OWNER_COOKIE, box.seal('something else:7'));
    expect(b.postExpired('/dashboard/playground', { url: 'https://example.com/' })).toBeNull();
    expect(b.jar.has(DRAFT_COOKIE)).toBe(false);
  });
});

describe("a failed try's message goes beside the option that failed it", () => {
  const values = new URLSearchParams({ url: 'https://example.com/', selector: '#price', hide_selectors: '.a\ndiv[[' });
  it.each([
    ['No element matches selector "#price": the page finished loading and stayed still for 3 s without one', 'selector'],
    ['No element matches wait_for_selector "#app": the page finished loading and stayed still for 3 s without one', 'wait_for_selector'],
    ['Timed out after 30000 ms waiting for selector "#app"', 'wait_for_selector'],
    ['Timed out after 30000 ms waiting for an element matching selector "#price"', 'selector'],
    ['Invalid CSS selector: div[[', 'hide_selectors'],
    ['The page did not answer within 30 s', 'url'],
  ])('%s → %s', (message, field) => {
    expect(failedField(message, values)).toBe(field);
  });
});

describe('the error summary above a form', () => {
  const state = (errors: Array<[string, string[]]>) => ({ values: new URLSearchParams(), errors: new Map(errors) });
  it('points to marked fields only when one is marked', () => {
    expect(formErrors(state([['url', ['bad']]]), ['url']).toString()).toContain('see the field marked below.');
    expect(
      formErrors(
        state([
          ['url', ['bad']],
          ['name', ['empty']],
        ]),
      ).toString(),
    ).toContain('see the fields marked below.');
    const unshown = formErrors(state([['capture_options', ['too many']]]), ['url']).toString();
    expect(unshown).not.toContain('marked below');
    expect(unshown).toContain('<li>too many</li>');
    const both = formErrors(
      state([
        ['', ['general']],
        ['url', ['bad']],
      ]),
      ['url'],
    ).toString();
    expect(both).toContain('<li>general</li>');
    expect(both).toContain('… and the field marked below.');
    expect(formErrors(state([])).toString()).toBe('');
  });
});
