/**
 * Requests that must not compile: each line under `// @ts-expect-error` is a mistake a user could make, and the
 * directive is itself an error when the line compiles, so `npm run typecheck` (here, and the root's, which includes
 * this folder) fails the day a request type starts accepting an unknown field again. Never run, only compiled.
 */
import { createClient, render, signRenderUrl } from '../src';

const api = createClient({ baseUrl: 'http://localhost:3000', token: 'sst_example' });
const key = { baseUrl: 'http://localhost:3000', accessKey: 'rk_example', secret: 'example' };

export async function requestsThatCompile(): Promise<void> {
  await render(api, { url: 'https://example.com', viewport_width: 1280, full_page: true, cache_ttl: 3600, clip: { x: 0, y: 0, width: 10, height: 10 } });
  signRenderUrl({ ...key, params: { url: 'https://example.com', viewport_width: 1280, remove_selectors: ['.ad'] } });
  await api.POST('/websites', { body: { name: 'Example', url: 'https://example.com', viewport_width: 1280 } });
  await api.POST('/websites/{id}/screenshot', { params: { path: { id: 1 } }, body: { full_page: true } });
  await api.GET('/websites', { params: { query: { page: 1, per_page: 20 } } });
}

export async function requestsThatMustNotCompile(): Promise<void> {
  // @ts-expect-error a misspelled option of render()
  await render(api, { url: 'https://example.com', viewport_widht: 1280 });
  // @ts-expect-error an option of the wrong type
  await render(api, { url: 'https://example.com', viewport_width: '1280' });
  // @ts-expect-error render() without the page's url
  await render(api, { full_page: true });
  // @ts-expect-error a misspelled parameter of a signed link
  signRenderUrl({ ...key, params: { url: 'https://example.com', viewport_widht: 1280 } });
  // @ts-expect-error an object (clip) cannot be a signed link's query value
  signRenderUrl({ ...key, params: { url: 'https://example.com', clip: { x: 0, y: 0, width: 10, height: 10 } } });
  // @ts-expect-error a misspelled field of a website
  await api.POST('/websites', { body: { name: 'Example', url: 'https://example.com', viewport_widht: 1280 } });
  // @ts-expect-error a misspelled option of Take Screenshot
  await api.POST('/websites/{id}/screenshot', { params: { path: { id: 1 } }, body: { full_pgae: true } });
  // @ts-expect-error a misspelled query parameter of a list
  await api.GET('/websites', { params: { query: { page: 1, perpage: 20 } } });
}
