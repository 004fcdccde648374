/**
 * Integration spec: the visible text read with a capture (text changes, request.keepText) — real headless Chromium
 * against pages served on loopback, one of them under a strict Content-Security-Policy.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { captureRequest } from '../../../test/support/capture-request';
import { PuppeteerPageCapturer } from './puppeteer-page-capturer';

jest.setTimeout(90_000);

const PAGE =
  '<!doctype html><title>T</title><h1>Headline</h1><p>Intro   text</p><div id="clock">12:00:01</div>' +
  '<p hidden>display none</p>' +
  '<section id="main"><h2>Main</h2><p>Inside main</p></section>';

describe('visible text with the picture (real Chromium)', () => {
  let server: Server;
  let base: string;
  let capturer: PuppeteerPageCapturer;

  beforeAll(async () => {
    server = createServer((req, res) => {
      // No <style> element or style attribute may be added to this page: the ignored elements must go by the CSSOM.
      const csp = req.url === '/csp' ? { 'content-security-policy': "default-src 'none'" } : {};
      res.writeHead(200, { 'content-type': 'text/html', ...csp }).end(PAGE);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    capturer = new PuppeteerPageCapturer({ browsers: 1, concurrency: 2, timeoutMs: 30_000, allowPrivateNetworks: true });
    await capturer.warmUp();
  });

  afterAll(async () => {
    await capturer.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('keepText: the rendered text, hidden text left out; without keepText no text is read', async () => {
    const result = await capturer.capture(captureRequest(`${base}/`, { keepText: true, waitUntil: 'load' }));
    const lines = result.text?.split('\n').filter((l) => l.trim());
    expect(lines).toEqual(['Headline', 'Intro text', '12:00:01', 'Main', 'Inside main']);
    expect((await capturer.capture(captureRequest(`${base}/`, { waitUntil: 'load' }))).text).toBeUndefined();
  });

  it('ignoreSelectors are left out of the text (also under a strict CSP, so through the CSSOM); an element capture keeps its element’s text', async () => {
    for (const path of ['/', '/csp']) {
      const result = await capturer.capture(captureRequest(`${base}${path}`, { keepText: true, waitUntil: 'load', ignoreSelectors: ['#clock', 'h1'] }));
      expect({ path, text: result.text?.split('\n').filter((l) => l.trim()) }).toEqual({ path, text: ['Intro text', 'Main', 'Inside main'] });
      expect(result.ignoreBoxes?.length).toBe(2); // measured before the text was read: both were still laid out
    }
    const element = await capturer.capture(captureRequest(`${base}/`, { keepText: true, waitUntil: 'load', selector: '#main' }));
    expect(element.text?.split('\n').filter((l) => l.trim())).toEqual(['Main', 'Inside main']);
  });

  it('a PDF reads no text', async () => {
    const pdf = await capturer.capture(
      captureRequest(`${base}/`, {
        keepText: true,
        waitUntil: 'load',
        output: { format: 'pdf', quality: null, pdf: { paper: 'a4', landscape: false, printBackground: true }, omitBackground: false },
      }),
    );
    expect(pdf.text).toBeUndefined();
  });
});
