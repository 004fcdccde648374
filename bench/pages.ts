/**
 * The bench's pages, served from this process on 127.0.0.1: four that are complete at `load` (small, text-heavy,
 * image-heavy, tall full-page) and a fifth whose content arrives 1 s after `load`, the way many sites fill
 * themselves in from an API.
 */
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';

export interface PageSpec {
  name: string;
  path: string;
  fullPage: boolean;
}

export const MIX: PageSpec[] = [
  { name: 'small', path: '/small', fullPage: false },
  { name: 'text-heavy', path: '/text', fullPage: false },
  { name: 'image-heavy', path: '/images', fullPage: false },
  { name: 'tall', path: '/tall', fullPage: true },
];
export const SMALL = MIX[0];
export const LATE: PageSpec = { name: 'late (content 1 s after load)', path: '/late', fullPage: false };

/** The colour the late content paints over the whole viewport. */
const LATE_RGB = [30, 144, 255];

function noisePng(size: number, seed: number): Buffer {
  const png = new PNG({ width: size, height: size });
  let x = seed;
  for (let i = 0; i < png.data.length; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    png.data[i] = i % 4 === 3 ? 255 : x & 0xff;
  }
  return PNG.sync.write(png);
}

/** The bench pages being served: the server, and its base URL. */
export interface Pages {
  server: Server;
  url: string;
}

export async function startPages(): Promise<Pages> {
  const images = Array.from({ length: 12 }, (_, i) => noisePng(160, i + 1));
  const lorem = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. ';
  const html: Record<string, string> = {
    '/small': '<!doctype html><title>small</title><body style="font-family:sans-serif"><h1>Hello</h1><p>A small page.</p></body>',
    '/text': `<!doctype html><title>text</title><body style="font-family:serif;columns:3">${Array.from({ length: 400 }, (_, i) => `<p><b>${i}</b> ${lorem.repeat(3)}</p>`).join('')}</body>`,
    '/images': `<!doctype html><title>images</title><body>${images.map((_, i) => `<img src="/img/${i}.png" width="160" height="160">`).join('')}</body>`,
    '/tall': `<!doctype html><title>tall</title><body style="margin:0">${Array.from({ length: 50 }, (_, i) => `<div style="height:100px;background:hsl(${i * 7},70%,60%)">${i}</div>`).join('')}</body>`,
    '/late':
      '<!doctype html><title>late</title><body style="margin:0;font-family:sans-serif"><p id="state">Loading…</p><script>' +
      "addEventListener('load', () => setTimeout(() => fetch('/late-content').then((r) => r.text()).then((html) => { document.body.innerHTML = html; }), 1000));" +
      '</script></body>',
  };
  const lateContent = `<div style="position:fixed;inset:0;background:rgb(${LATE_RGB.join(',')})"><h1>Content</h1></div>`;
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    const img = /^\/img\/(\d+)\.png$/.exec(url);
    if (img) return void res.writeHead(200, { 'content-type': 'image/png' }).end(images[Number(img[1])]);
    if (url === '/late-content') return void res.writeHead(200, { 'content-type': 'text/html' }).end(lateContent);
    const body = html[url];
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Whether a capture of /late shows the content that arrived after load (its colour in the middle). */
export function showsLateContent(png: Buffer): boolean {
  const image = PNG.sync.read(png);
  const at = (Math.floor(image.height / 2) * image.width + Math.floor(image.width / 2)) * 4;
  return LATE_RGB.every((value, i) => Math.abs(image.data[at + i] - value) <= 2);
}
