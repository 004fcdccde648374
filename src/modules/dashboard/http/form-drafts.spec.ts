import { formPageOf, keptFields, withSecretsFrom } from './form-drafts';
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
