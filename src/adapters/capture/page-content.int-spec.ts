/**
 * Integration spec: the content formats (html, markdown, text, metadata) in real Chromium against a realistic blog
 * page served on 127.0.0.1 (test/support/blog-page.ts): the markdown holds the article, its table and its code block,
 * and none of the navigation, ads, sidebar, comments or footer; the html is the DOM after scripts ran; the metadata
 * is what the page declares.
 */
import type { OutputFormat } from '../../shared/domain/output-format';
import { BLOG_PAGE } from '../../../test/support/blog-page';
import { captureRequest } from '../../../test/support/capture-request';
import { PageServer } from '../../../test/support/page-server';
import { decodeImage } from '../../../test/support/images';
import { PuppeteerPageCapturer } from './puppeteer-page-capturer';

jest.setTimeout(90_000);

describe('content formats (real Chromium, a realistic blog page)', () => {
  let pages: PageServer;
  let capturer: PuppeteerPageCapturer;

  const content = async (format: OutputFormat, path = '/blog/sizing-connection-pools') => {
    const result = await capturer.capture(
      captureRequest(`${pages.url}${path}`, { waitUntil: 'load', output: { format, quality: null, pdf: null, omitBackground: false } }),
    );
    return { result, text: result.data.toString('utf8') };
  };

  beforeAll(async () => {
    pages = await new PageServer({
      '/blog/sizing-connection-pools': BLOG_PAGE,
      '/bare': '<!doctype html><title>Bare</title><p>Just one line.</p>',
    }).start();
    capturer = new PuppeteerPageCapturer({ browsers: 1, concurrency: 2, timeoutMs: 30_000, allowPrivateNetworks: true });
    await capturer.warmUp();
  });

  afterAll(async () => {
    await capturer.close();
    await pages.stop();
  });

  it('markdown: the article with its heading, table and fenced code block; no nav, ads, sidebar, comments or footer', async () => {
    const { result, text: md } = await content('markdown');
    expect(result.format).toBe('markdown');
    expect(md).toMatch(/^# Sizing connection pools\n/);
    expect(md).toContain('Connection pools are the quiet workhorses of every web service.');
    expect(md).toContain('## The measurements');
    expect(md).toContain('| Pool size | Throughput | p99 latency |\n| --- | --- | --- |\n| 10 | 1450 | 38 ms |');
    expect(md).toContain('```ts\nconst pool = new Pool({\n  max: 20,\n  idleTimeoutMillis: 30_000,\n});\n```');
    expect(md).toContain('written by a script after load');
    for (const chrome of [
      'Careers',
      'Subscribe to our newsletter',
      'SPONSORED',
      'ADVERTISEMENT',
      'Popular posts',
      'troll42',
      'pgbouncer',
      'Cookie settings',
      'Privacy',
    ]) {
      expect({ chrome, inMarkdown: md.includes(chrome) }).toEqual({ chrome, inMarkdown: false });
    }
    // A thumbnail still comes from the page as seen: a viewport PNG, the screenshot's size.
    expect(result.preview).toBeDefined();
    const preview = await decodeImage(result.preview!);
    expect([preview.width, preview.height, result.width, result.height]).toEqual([1280, 800, 1280, 800]);
  });

  it('markdown of a page with no article: its body, so there is always something', async () => {
    const { text } = await content('markdown', '/bare');
    expect(text).toContain('Just one line.');
  });

  it('html: the DOM after scripts ran, with its doctype', async () => {
    const { text } = await content('html');
    expect(text.startsWith('<!DOCTYPE html>\n<html lang="en-GB">')).toBe(true);
    expect(text).toContain('<p>Update: written by a script after load, so only a browser sees it.</p>');
    expect(text).toContain('data-filled="yes"');
  });

  it('text: the visible text, the whole page as rendered', async () => {
    const { text } = await content('text');
    expect(text).toContain('Sizing connection pools');
    expect(text).toContain('SPONSORED: Buy CloudWidgets');
    expect(text).not.toContain('<p>');
    expect(text).not.toContain('schema.org'); // a script's text is not visible text
  });

  it('metadata: title, description, canonical and icons made absolute, lang, Open Graph (repeats as a list), Twitter, JSON-LD', async () => {
    const { text } = await content('metadata');
    expect(JSON.parse(text)).toEqual({
      url: `${pages.url}/blog/sizing-connection-pools`,
      title: 'Sizing connection pools | Example Engineering Blog',
      description: 'How we sized our database connection pools, with measurements.',
      canonical: `${pages.url}/blog/sizing-connection-pools`,
      lang: 'en-GB',
      open_graph: {
        title: 'Sizing connection pools',
        type: 'article',
        image: ['https://cdn.example.com/pools-1.png', 'https://cdn.example.com/pools-2.png'],
        site_name: 'Example Engineering Blog',
      },
      twitter: { card: 'summary_large_image', site: '@exampleeng' },
      icons: [
        { rel: 'icon', href: `${pages.url}/favicon.ico`, sizes: '32x32', type: null },
        { rel: 'apple-touch-icon', href: `${pages.url}/apple-touch-icon.png`, sizes: '180x180', type: null },
      ],
      json_ld: [
        {
          '@context': 'https://schema.org',
          '@type': 'BlogPosting',
          headline: 'Sizing connection pools',
          author: { '@type': 'Person', name: 'Ada Lovelace' },
          datePublished: '2026-11-02',
        },
      ],
    });
  });
});
