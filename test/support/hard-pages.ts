/**
 * Pages that are hard to capture whole, made with the real libraries from npm (dev dependencies) and served on
 * 127.0.0.1, each with a program that says from the picture's pixels whether it is complete. Used by the
 * reveal's integration spec and by `npm run bench:pages`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';

export type Rgb = [number, number, number];

/** Eight lazy images, each its own solid colour, one a viewport (800 px) apart down a 9,000 px page. */
export const LAZY_COLOURS: Rgb[] = [
  [230, 25, 75],
  [60, 180, 75],
  [255, 225, 25],
  [0, 130, 200],
  [245, 130, 48],
  [145, 30, 180],
  [70, 240, 240],
  [240, 50, 230],
];
const LAZY_TOP = (i: number): number => 900 + i * 1_000;
const LAZY_SIZE = { width: 400, height: 300 };
/** Each image answers after this long: a frame per viewport is far too short for it. */
const IMAGE_DELAY_MS = 300;

/** The bars of the chart: full height is where the top of the tallest bar is when its animation is over. */
const CHART_RGB: Rgb = [54, 162, 235];

export interface Picture {
  width: number;
  height: number;
  at(x: number, y: number): Rgb;
}

export function readPng(data: Buffer): Picture {
  const png = PNG.sync.read(data);
  return {
    width: png.width,
    height: png.height,
    at: (x, y) => {
      const i = (y * png.width + x) * 4;
      return [png.data[i], png.data[i + 1], png.data[i + 2]];
    },
  };
}

export function near(a: Rgb, b: Rgb, tolerance = 8): boolean {
  return a.every((value, i) => Math.abs(value - b[i]) <= tolerance);
}

export interface Verdict {
  complete: boolean;
  detail: string;
}

export interface HardPage {
  name: string;
  path: string;
  fullPage: boolean;
  /** A device preset of the API (the bench's service), else the 1280×800 desktop viewport. */
  device?: string;
  blockCookieBanners?: boolean;
  check(picture: Picture): Verdict;
}

/** How many of the eight lazy images are in the picture (the pixel in the middle of each, scaled by the image's width). */
export function lazyImagesShown(picture: Picture, scale = picture.width / 1280): number {
  return LAZY_COLOURS.filter((colour, i) => {
    const x = Math.round((LAZY_SIZE.width / 2) * scale);
    const y = Math.round((LAZY_TOP(i) + LAZY_SIZE.height / 2) * scale);
    return y < picture.height && near(picture.at(x, y), colour);
  }).length;
}

function lazyCheck(picture: Picture): Verdict {
  const shown = lazyImagesShown(picture);
  return { complete: shown === LAZY_COLOURS.length, detail: `${shown}/${LAZY_COLOURS.length} images` };
}

/** The chart's tallest bar reaches up to this y (CSS px) when drawn in full; mid-animation it is lower. */
export function chartBarTop(picture: Picture): number {
  const x = 640;
  for (let y = 0; y < Math.min(picture.height, 800); y++) if (near(picture.at(x, y), CHART_RGB, 20)) return y;
  return -1;
}

export const HARD_PAGES: HardPage[] = [
  { name: 'lazy: native loading=lazy', path: '/lazy/native', fullPage: true, check: lazyCheck },
  { name: 'lazy: vanilla-lazyload', path: '/lazy/vanilla', fullPage: true, check: lazyCheck },
  { name: 'lazy: lozad', path: '/lazy/lozad', fullPage: true, check: lazyCheck },
  { name: 'lazy: lazysizes', path: '/lazy/lazysizes', fullPage: true, check: lazyCheck },
  {
    name: 'chart.js after a fetch',
    path: '/chart',
    fullPage: false,
    check: (picture) => {
      const top = chartBarTop(picture);
      // In full the tallest bar's top is within the chart's top 100 px (measured: 52 px); drawn at a third, near its bottom.
      return { complete: top >= 0 && top < 120, detail: top < 0 ? 'no bars' : `tallest bar's top at y=${top}` };
    },
  },
  {
    name: 'consent dialog, Reject does nothing',
    path: '/consent',
    fullPage: false,
    blockCookieBanners: true,
    check: (picture) => {
      const covered = near(picture.at(640, 700), [20, 20, 20]);
      return { complete: !covered, detail: covered ? 'dialog in the picture' : 'dialog gone' };
    },
  },
  {
    name: 'late web fonts (7 files, 6 connections)',
    path: '/fonts',
    fullPage: false,
    check: (picture) => {
      // Ten "M" at 80 px: about 330 px of ink in Bebas Neue, 640+ in a fallback sans; none while a font blocks.
      const widths = FONT_LINES.map((_, i) => inkWidth(picture, 40 + i * 100 + 50));
      const inFont = widths.filter((w) => w > 200 && w < 480).length;
      return { complete: inFont === FONT_LINES.length, detail: `${inFont}/${FONT_LINES.length} lines in the web font` };
    },
  },
  {
    name: 'request chain (1 s, then 2.5 s)',
    path: '/chain',
    fullPage: false,
    check: (picture) => {
      const shown = near(picture.at(640, 400), [0, 128, 0]);
      return { complete: shown, detail: shown ? 'content shown' : 'still loading' };
    },
  },
  {
    name: 'tall page (20,000 px)',
    path: '/tall',
    fullPage: true,
    check: (picture) => {
      const bottom = near(picture.at(640, picture.height - 5), [0, 0, 255]);
      return { complete: picture.height >= 20_000 && bottom, detail: `${picture.height} px${bottom ? '' : ', cut'}` };
    },
  },
  {
    name: 'HTTP 404 page',
    path: '/missing',
    fullPage: false,
    check: (picture) => {
      const shown = near(picture.at(640, 400), [255, 165, 0]);
      return { complete: shown, detail: shown ? "the 404 page's content" : 'blank' };
    },
  },
  {
    name: 'endless rAF loop (game)',
    path: '/endless-frames',
    fullPage: false,
    check: (picture) => {
      const shown = near(picture.at(640, 400), [0, 128, 0]);
      return { complete: shown, detail: shown ? 'page shown' : 'blank' };
    },
  },
  {
    name: 'not mobile-friendly on iPhone 13',
    path: '/desktop-only',
    fullPage: true,
    device: 'iPhone 13',
    check: (picture) => {
      // 980 CSS px wide, 3,000 tall, a red stripe at its right edge and a blue band at its bottom.
      const right = near(picture.at(picture.width - 3, Math.floor(picture.height / 2)), [255, 0, 0]);
      const bottom = near(picture.at(Math.floor(picture.width / 4), picture.height - 3), [0, 0, 255]);
      return {
        complete: right && bottom,
        detail: `${picture.width}×${picture.height}${right ? '' : ', right side cut'}${bottom ? '' : ', bottom not the page'}`,
      };
    },
  },
];

function lazyPage(kind: string): string {
  const images = LAZY_COLOURS.map((_, i) => {
    const style = `position:absolute;left:0;top:${LAZY_TOP(i)}px;width:${LAZY_SIZE.width}px;height:${LAZY_SIZE.height}px`;
    const src = `/img/${i}.png`;
    switch (kind) {
      case 'native':
        return `<img loading="lazy" src="${src}" style="${style}">`;
      case 'vanilla':
        return `<img class="lazy" data-src="${src}" style="${style}">`;
      case 'lozad':
        return `<img class="lozad" data-src="${src}" style="${style}">`;
      default:
        return `<img class="lazyload" data-src="${src}" style="${style}">`;
    }
  }).join('');
  const scripts: Record<string, string> = {
    native: '',
    vanilla: `<script src="/lib/vanilla-lazyload.js"></script><script>new LazyLoad({ elements_selector: '.lazy' });</script>`,
    lozad: `<script src="/lib/lozad.js"></script><script>lozad('.lozad').observe();</script>`,
    lazysizes: `<script src="/lib/lazysizes.js" async></script>`,
  };
  return `<!doctype html><html><head><title>lazy ${kind}</title><style>html,body{margin:0;background:#fff}</style></head>
<body><div style="position:relative;height:${LAZY_TOP(LAZY_COLOURS.length) + 200}px"><h1>Lazy images (${kind})</h1>${images}</div>${scripts[kind]}</body></html>`;
}

const CHART_PAGE = `<!doctype html><html><head><title>chart</title><style>html,body{margin:0;background:#fff}</style></head>
<body><div style="width:1280px;height:700px"><canvas id="chart"></canvas></div>
<script src="/lib/chart.js"></script>
<script>
  fetch('/chart-data').then((r) => r.json()).then((values) => {
    new Chart(document.getElementById('chart'), {
      type: 'bar',
      data: { labels: values.map((_, i) => 'Q' + (i + 1)), datasets: [{ label: 'Sales', data: values,
        backgroundColor: 'rgb(${CHART_RGB.join(',')})', borderWidth: 0, barPercentage: 1, categoryPercentage: 1 }] },
      options: { responsive: true, maintainAspectRatio: false, plugins: { legend: { display: false } },
        scales: { y: { beginAtZero: true, max: 100 } } },
    });
  });
</script></body></html>`;

/**
 * A Cookiebot-style dialog (its ids, so the consent rules recognise it) whose Reject button does nothing, over a
 * dark backdrop: the page's own bug, or a CMP the rules click wrongly. The page is white behind it.
 */
const CONSENT_PAGE = `<!doctype html><html><head><title>consent</title><style>html,body{margin:0;background:#fff}</style></head>
<body><h1>Article</h1><p>Text of the article.</p>
<div id="CybotCookiebotDialogBodyUnderlay" style="position:fixed;inset:0;background:rgb(20,20,20);z-index:999"></div>
<div id="CybotCookiebotDialog" name="CybotCookiebotDialog" role="dialog" aria-modal="true" class="CybotCookiebotDialogActive"
  style="position:fixed;left:0;right:0;bottom:0;height:500px;background:rgb(20,20,20);color:#fff;z-index:1000;display:block">
  <h2 id="CybotCookiebotDialogBodyContentTitle">This website uses cookies</h2>
  <div id="CybotCookiebotDialogBodyContentText">We use cookies to personalise content and ads.</div>
  <button id="CybotCookiebotDialogBodyButtonDecline">Reject</button>
  <button id="CybotCookiebotDialogBodyLevelButtonLevelOptinAllowAll">Allow all</button>
</div>
<script>
  // Cookiebot's API as its consent rule drives it; withdraw() and hide() do nothing here, like the Reject button.
  window.Cookiebot = { consent: {}, declined: false, hasResponse: false, dialog: { visible: true }, withdraw() {}, hide() {} };
</script>
</body></html>`;

/** The same dialog whose Reject works (Cookiebot.hide() hides it), under a sticky header with a Privacy link that must stay. */
const CONSENT_WORKS_PAGE = CONSENT_PAGE.replace(
  '<h1>Article</h1>',
  '<header style="position:sticky;top:0;height:80px;background:rgb(0,0,200)"><a href="/privacy">Privacy</a></header><h1>Article</h1>',
).replace(
  'withdraw() {}, hide() {} };',
  "withdraw() {}, hide() { for (const id of ['CybotCookiebotDialog', 'CybotCookiebotDialogBodyUnderlay']) document.getElementById(id).remove(); } };",
);

/** Seven families, each its own file (the same font under seven URLs), answered after 800 ms each: the seventh waits for one of Chromium's six connections. */
const FONT_LINES = [1, 2, 3, 4, 5, 6, 7];
const FONTS_PAGE = `<!doctype html><html><head><title>fonts</title><style>html,body{margin:0;background:#fff}
${FONT_LINES.map((n) => `@font-face { font-family: 'Late${n}'; src: url('/font/${n}.woff2') format('woff2'); font-display: swap; }`).join('\n')}
p { margin: 0; height: 100px; line-height: 100px; font-size: 80px; padding-left: 20px; color: #000; white-space: nowrap }
</style></head><body><div style="height:40px"></div>
${FONT_LINES.map((n) => `<p style="font-family: 'Late${n}', sans-serif">MMMMMMMMMM</p>`).join('')}</body></html>`;

/** The width of the dark ink on row y. */
function inkWidth(picture: Picture, y: number): number {
  let first = -1;
  let last = -1;
  for (let x = 0; x < picture.width; x++) {
    if (picture.at(x, y)[0] < 100) {
      if (first < 0) first = x;
      last = x;
    }
  }
  return first < 0 ? 0 : last - first + 1;
}

/**
 * Content behind two requests in a row: 1 s, then 2.5 s; green when it arrives. Each body is read, as a real page
 * reads its data (a fetch whose body is never read stays in flight for Chromium until the page goes away).
 */
const CHAIN_PAGE = `<!doctype html><html><head><title>chain</title><style>html,body{margin:0;background:#fff}</style></head>
<body><p>Loading…</p><script>
  fetch('/wait?ms=1000').then((r) => r.text()).then(() => fetch('/wait?ms=2500')).then((r) => r.text()).then(() => { document.documentElement.style.background = 'rgb(0,128,0)'; document.body.style.background = 'rgb(0,128,0)'; document.body.innerHTML = '<h1>Content</h1>'; });
</script></body></html>`;

const TALL_PAGE = `<!doctype html><html><head><title>tall</title><style>html,body{margin:0}</style></head>
<body><div style="height:19800px;background:linear-gradient(rgb(0,128,0),rgb(200,200,0))"></div><div style="height:200px;background:rgb(0,0,255)"></div></body></html>`;

const NOT_FOUND_PAGE = `<!doctype html><html><head><title>Not found</title><style>html,body{margin:0;height:100%;background:rgb(255,165,0)}</style></head><body><h1>404 — no such page</h1></body></html>`;

/** Green, with a canvas spinner drawn every frame for ever (a game loop): it must not hold the capture past the cap. */
const ENDLESS_FRAMES_PAGE = `<!doctype html><html><head><title>endless</title><style>html,body{margin:0;background:rgb(0,128,0)}</style></head>
<body><canvas id="c" width="100" height="100"></canvas><script>
  const ctx = document.getElementById('c').getContext('2d');
  (function draw(t) { ctx.clearRect(0, 0, 100, 100); ctx.fillStyle = '#fff'; ctx.fillRect(50 + 40 * Math.cos(t / 200), 50, 5, 5); requestAnimationFrame(draw); })(0);
</script></body></html>`;

/** No viewport meta: a phone lays it out 980 px wide and shows it zoomed out. Red stripe on the right, blue band at the bottom. */
const DESKTOP_ONLY_PAGE = `<!doctype html><html><head><title>desktop only</title><style>html,body{margin:0;background:#fff}</style></head>
<body><div style="position:relative;width:980px;height:3000px;background:rgb(0,160,0)">
<div style="position:absolute;right:0;top:0;width:60px;height:3000px;background:rgb(255,0,0)"></div>
<div style="position:absolute;left:0;bottom:0;width:980px;height:150px;background:rgb(0,0,255)"></div></div></body></html>`;

/** Read from node_modules directly: some packages' exports maps do not name their browser bundles. */
function libraryFile(path: string): string {
  return readFileSync(join(__dirname, '..', '..', 'node_modules', path), 'utf8');
}

function solidPng(rgb: Rgb): Buffer {
  const png = new PNG({ width: 8, height: 8 });
  for (let i = 0; i < png.data.length; i += 4) png.data.set([...rgb, 255], i);
  return PNG.sync.write(png);
}

export interface HardPagesServer {
  url: string;
  /** The lazy images' requests answered whole (a request the browser cancelled is not), by path. */
  served: string[];
  stop(): Promise<void>;
}

export async function startHardPages(): Promise<HardPagesServer> {
  const libraries: Record<string, string> = {
    '/lib/vanilla-lazyload.js': libraryFile('vanilla-lazyload/dist/lazyload.min.js'),
    '/lib/lozad.js': libraryFile('lozad/dist/lozad.min.js'),
    '/lib/lazysizes.js': libraryFile('lazysizes/lazysizes.min.js'),
    '/lib/chart.js': libraryFile('chart.js/dist/chart.umd.min.js'),
  };
  const images = LAZY_COLOURS.map(solidPng);
  const pages: Record<string, string> = {
    '/chart': CHART_PAGE,
    '/consent': CONSENT_PAGE,
    '/consent-works': CONSENT_WORKS_PAGE,
    '/desktop-only': DESKTOP_ONLY_PAGE,
    '/endless-frames': ENDLESS_FRAMES_PAGE,
    '/fonts': FONTS_PAGE,
    '/chain': CHAIN_PAGE,
    '/tall': TALL_PAGE,
    '/static': '<!doctype html><title>static</title><body style="font-family:sans-serif"><h1>Hello</h1><p>A small page.</p></body>',
    ...Object.fromEntries(['native', 'vanilla', 'lozad', 'lazysizes'].map((kind) => [`/lazy/${kind}`, lazyPage(kind)])),
    '/lazy/hanging': lazyPage('native').replace(/\/img\//g, '/img-hang/'),
  };
  const font = readFileSync(join(__dirname, '..', '..', 'node_modules', '@fontsource/bebas-neue/files/bebas-neue-latin-400-normal.woff2'));
  const served: string[] = [];
  const server: Server = createServer((req, res) => {
    const [path, query = ''] = (req.url ?? '/').split('?');
    if (path.startsWith('/font/')) {
      setTimeout(() => res.writeHead(200, { 'content-type': 'font/woff2', 'cache-control': 'no-store' }).end(font), 800);
      return;
    }
    if (path === '/wait') {
      const ms = Math.min(10_000, Number(new URLSearchParams(query).get('ms')) || 0);
      setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'no-store' }).end('ok'), ms);
      return;
    }
    // Never answered (until the server stops): what a reveal step must not wait for beyond its bound.
    if (path.startsWith('/img-hang/')) return;
    if (path === '/missing') return void res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' }).end(NOT_FOUND_PAGE);
    const image = /^\/img\/(\d)\.png$/.exec(path);
    if (image) {
      const body = images[Number(image[1])];
      setTimeout(() => {
        if (req.socket.destroyed) return;
        res.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'no-store' }).end(body, () => served.push(path));
      }, IMAGE_DELAY_MS);
      return;
    }
    if (path === '/chart-data') {
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify([40, 100, 70, 55])), 300);
      return;
    }
    if (libraries[path]) return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(libraries[path]);
    if (pages[path]) return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(pages[path]);
    res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
