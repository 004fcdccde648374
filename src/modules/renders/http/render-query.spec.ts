import { renderQueryToBody, SECRET_OPTIONS, secretsInQuery } from './render-query';

describe('GET /render query → body', () => {
  it('a URL-pattern list takes one value, a repeated parameter or a JSON array', () => {
    expect(renderQueryToBody({ block_requests: 'https://ads.example/*' }).block_requests).toEqual(['https://ads.example/*']);
    expect(renderQueryToBody({ block_requests: ['https://a.example/*', 'https://b.example/*'] }).block_requests).toEqual([
      'https://a.example/*',
      'https://b.example/*',
    ]);
    expect(renderQueryToBody({ block_requests: '["https://a.example/*"]' }).block_requests).toEqual(['https://a.example/*']);
  });

  it('keeps __proto__ as a field of its own (the DTO names it), never as the prototype', () => {
    const query = Object.assign(Object.create(null) as Record<string, unknown>, { url: 'https://example.com/' });
    Object.defineProperty(query, '__proto__', { value: 'x', enumerable: true });
    const body = renderQueryToBody(query);
    expect(Object.keys(body)).toEqual(['url', '__proto__']);
    expect(Object.getPrototypeOf(body)).toBeNull();
  });
});

describe('secrets in a query string', () => {
  it('are the capture-option table’s secret rows', () => {
    expect(SECRET_OPTIONS).toEqual(expect.arrayContaining(['cookies', 'headers', 'http_auth']));
    expect(SECRET_OPTIONS).not.toContain('url');
  });

  it('names each one sent, in a signed link or a bearer query, pointing to saved sessions', () => {
    const query = { url: 'https://example.com/', cookies: '[]', http_auth: '{}' };
    expect(secretsInQuery(query, true)).toEqual([
      {
        field: 'cookies',
        message:
          'cookies must not be sent in a signed link: the link is public. Use a saved session: create one with POST /sessions and pass its id as session_id (docs/sessions.md), or send it in a POST /render body with a bearer token',
      },
      {
        field: 'http_auth',
        message:
          'http_auth must not be sent in a signed link: the link is public. Use a saved session: create one with POST /sessions and pass its id as session_id (docs/sessions.md), or send it in a POST /render body with a bearer token',
      },
    ]);
    expect(secretsInQuery({ headers: '{}' }, false)[0].message).toMatch(/^headers must not be sent in a query string: URLs end up in logs/);
    expect(secretsInQuery({ url: 'https://example.com/', full_page: 'true' }, true)).toEqual([]);
  });
});
