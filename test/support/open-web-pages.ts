/**
 * Pages of the open web that a capture gets wrong without saying so (issue 42): reveal-on-scroll that hides again
 * (AOS on its defaults, GSAP ScrollTrigger reversing, an IntersectionObserver toggling a class), an app shell whose
 * content scrolls inside `<main>`, a looping lottie animation, sub-resources that never answer (a tracking pixel, an
 * async tag, an embed; a blocking script midway), a masonry of 40 slow images, a React 18 app over chained fetches and
 * a cross-site lazy iframe below the first screen. Each is made with the real library installed from npm (its dist
 * file served from node_modules) and served on 127.0.0.1 (the iframe's document from `localhost` on a second port),
 * and each has a program that says from the picture's pixels whether it is complete — like test/support/hard-pages.ts,
 * whose helpers these reuse. Used by test/open-web-pages.int-spec.ts (which proves each check can fail and pass) and
 * by `npm run bench:pages`.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';

import { type HardPage, LAZY_COLOURS, near, type Picture, type Rgb, type Verdict } from './hard-pages';

export interface OpenWebPage extends HardPage {
  /** Some of its requests are never answered (until the server stops): its `load` event never fires. */
  hangs?: boolean;
}

/** The sections of the reveal-on-scroll pages: 1,000 px each, 100 px apart, under a 200 px header, over a 600 px footer. */
const SECTION_COLOURS: Rgb[] = LAZY_COLOURS;
const SECTION = { top: 200, height: 1_000, gap: 100 };
/** The app shell's bands: twelve of 500 px, 6,000 px in all, inside `<main>`. */
const BAND_COLOURS: Rgb[] = [...LAZY_COLOURS, [128, 0, 0], [0, 128, 128], [128, 128, 0], [0, 0, 128]];
const BAND_HEIGHT = 500;
/** The static parts of the article pages (lottie, hung): a header band, the article's block, a footer band. */
const HEADER_RGB: Rgb = [0, 130, 200];
const ARTICLE_RGB: Rgb = [60, 180, 75];
const FOOTER_RGB: Rgb = [145, 30, 180];
/** The lottie animation's square (fill [1, 0.4, 0]): it turns about its centre, which it always covers. */
const LOTTIE_RGB: Rgb = [255, 102, 0];
/** The React app's final content: a panel and a card, painted only after the third fetch answered. */
const REACT_PANEL_RGB: Rgb = [145, 30, 180];
const REACT_CARD_RGB: Rgb = [255, 225, 25];
/** The cross-site iframe's document, and where the frame is on its 3,200 px page. */
const FRAME_RGB: Rgb = [240, 50, 230];
const FRAME_BOX = { left: 240, top: 2_400, width: 800, height: 400 };
/** The masonry's 40 images: each its own colour (r × g × b = 4 × 5 × 2, at least 50 apart), 240 px wide. */
const MASONRY_COLOURS: Rgb[] = Array.from({ length: 40 }, (_, i) => [30 + (i % 4) * 60, 30 + (Math.floor(i / 4) % 5) * 50, i < 20 ? 60 : 200]);
const masonryHeight = (i: number): number => 150 + ((i * 71) % 250);
/** Each masonry image answers after 200–1,500 ms. */
const masonryDelay = (i: number): number => 200 + ((i * 389) % 1_301);
/** Each of the React app's three requests answers after this long. */
const API_DELAY_MS = 300;

/**
 * How many of `colours` appear, in that order, down the column x of the picture, each as a run of at least
 * `minRun` px (a section half faded in is not its colour; a blank picture has none).
 */
export function coloursDownColumn(picture: Picture, colours: Rgb[], x = 640, minRun = 100): number {
  let found = 0;
  let run = 0;
  for (let y = 0; y < picture.height && found < colours.length; y++) {
    run = near(picture.at(x, y), colours[found]) ? run + 1 : 0;
    if (run >= minRun) {
      found++;
      run = 0;
    }
  }
  return found;
}

/** How many of `colours` are somewhere in the picture (sampled every 6 px: each thing checked is larger). */
export function coloursPresent(picture: Picture, colours: Rgb[]): number {
  const seen = new Map<number, Rgb>();
  for (let y = 0; y < picture.height; y += 6) {
    for (let x = 0; x < picture.width; x += 6) {
      const rgb = picture.at(x, y);
      seen.set((rgb[0] << 16) | (rgb[1] << 8) | rgb[2], rgb);
    }
  }
  const present = [...seen.values()];
  return colours.filter((colour) => present.some((rgb) => near(rgb, colour))).length;
}

function sectionsCheck(picture: Picture): Verdict {
  const shown = coloursDownColumn(picture, SECTION_COLOURS);
  return { complete: shown === SECTION_COLOURS.length, detail: `${shown}/${SECTION_COLOURS.length} sections` };
}

/** Points of the picture that must have their colour, each with a name for the detail. */
function pointsCheck(points: Array<[string, number, number, Rgb]>): (picture: Picture) => Verdict {
  return (picture) => {
    const missing = points.filter(([, x, y, rgb]) => y >= picture.height || x >= picture.width || !near(picture.at(x, y), rgb)).map(([name]) => name);
    return { complete: missing.length === 0, detail: missing.length === 0 ? 'all there' : `missing: ${missing.join(', ')}` };
  };
}

const articleCheck = pointsCheck([
  ['header', 640, 60, HEADER_RGB],
  ['article', 640, 400, ARTICLE_RGB],
]);

export const OPEN_WEB_PAGES: OpenWebPage[] = [
  { name: 'reveal: AOS on its defaults (fade-up, once: false)', path: '/open/aos', fullPage: true, check: sectionsCheck },
  { name: 'reveal: GSAP ScrollTrigger (play none none reverse)', path: '/open/gsap', fullPage: true, check: sectionsCheck },
  { name: 'reveal: IntersectionObserver toggling a class', path: '/open/io', fullPage: true, check: sectionsCheck },
  {
    name: 'app shell (6,000 px scrolling inside <main>)',
    path: '/open/app-shell',
    fullPage: true,
    check: (picture) => {
      const shown = coloursDownColumn(picture, BAND_COLOURS);
      const tall = picture.height >= BAND_COLOURS.length * BAND_HEIGHT;
      return { complete: tall && shown === BAND_COLOURS.length, detail: `${shown}/${BAND_COLOURS.length} bands in ${picture.height} px` };
    },
  },
  {
    name: 'lottie-web looping animation',
    path: '/open/lottie',
    fullPage: false,
    check: pointsCheck([
      ['header', 640, 60, HEADER_RGB],
      ['article', 400, 450, ARTICLE_RGB],
      ['footer', 640, 760, FOOTER_RGB],
      ['animation', 1_060, 400, LOTTIE_RGB],
    ]),
  },
  { name: 'hung pixel, async tag and embed', path: '/open/hung', fullPage: false, hangs: true, check: articleCheck },
  { name: 'hung blocking script midway', path: '/open/hung-parse', fullPage: false, hangs: true, check: articleCheck },
  {
    name: 'masonry of 40 slow images (0.2–1.5 s each)',
    path: '/open/masonry',
    fullPage: true,
    check: (picture) => {
      const shown = coloursPresent(picture, MASONRY_COLOURS);
      return { complete: shown === MASONRY_COLOURS.length, detail: `${shown}/${MASONRY_COLOURS.length} images` };
    },
  },
  {
    name: 'React 18 after chained fetches (3 × 300 ms)',
    path: '/open/react',
    fullPage: false,
    check: pointsCheck([
      ['panel', 1_100, 700, REACT_PANEL_RGB],
      ['card', 300, 300, REACT_CARD_RGB],
    ]),
  },
  {
    name: 'cross-site lazy iframe below the first screen',
    path: '/open/iframe',
    fullPage: true,
    check: pointsCheck([['iframe', FRAME_BOX.left + FRAME_BOX.width / 2, FRAME_BOX.top + FRAME_BOX.height / 2, FRAME_RGB]]),
  },
];

const css = (rgb: Rgb): string => `rgb(${rgb.join(',')})`;

function revealPage(title: string, head: string, sectionAttributes: string, script: string): string {
  const sections = SECTION_COLOURS.map(
    (rgb, i) =>
      `<section ${sectionAttributes} style="height:${SECTION.height}px;margin-bottom:${SECTION.gap}px;background:${css(rgb)}"><h2 style="margin:0;padding:20px;width:200px">Section ${i + 1}</h2></section>`,
  ).join('\n');
  return `<!doctype html><html><head><meta name="viewport" content="width=device-width"><title>${title}</title>
<style>html,body{margin:0;background:#fff;font-family:sans-serif} header{height:${SECTION.top}px;background:rgb(235,235,235)} h1{margin:0;padding:60px 20px}</style>
${head}</head><body><header><h1>${title}</h1></header>
${sections}
<footer style="height:600px;background:rgb(235,235,235)"></footer>
${script}</body></html>`;
}

const AOS_PAGE = revealPage(
  'AOS',
  '<link rel="stylesheet" href="/open/lib/aos.css">',
  'data-aos="fade-up"',
  '<script src="/open/lib/aos.js"></script><script>AOS.init();</script>',
);

const GSAP_PAGE = revealPage(
  'GSAP ScrollTrigger',
  '',
  'class="reveal"',
  `<script src="/open/lib/gsap.js"></script><script src="/open/lib/ScrollTrigger.js"></script><script>
  gsap.registerPlugin(ScrollTrigger);
  gsap.utils.toArray('.reveal').forEach((el) => {
    gsap.fromTo(el, { opacity: 0 }, { opacity: 1, duration: 0.5, scrollTrigger: { trigger: el, start: 'top 85%', toggleActions: 'play none none reverse' } });
  });
</script>`,
);

const IO_PAGE = revealPage(
  'IntersectionObserver',
  '<style>.reveal{opacity:0;transition:opacity .4s} .reveal.visible{opacity:1}</style>',
  'class="reveal"',
  `<script>
  const observer = new IntersectionObserver((entries) => {
    for (const entry of entries) entry.target.classList.toggle('visible', entry.isIntersecting);
  });
  document.querySelectorAll('.reveal').forEach((el) => observer.observe(el));
</script>`,
);

const APP_SHELL_PAGE = `<!doctype html><html><head><meta name="viewport" content="width=device-width"><title>app shell</title>
<style>html,body{height:100%;overflow:hidden;margin:0;font-family:sans-serif} body{display:flex;flex-direction:column}
header{flex:none;height:56px;background:rgb(40,40,40);color:#fff;padding:0 20px;line-height:56px} main{flex:1}
.band{height:${BAND_HEIGHT}px} .band span{display:inline-block;padding:20px}</style></head>
<body><header>Dashboard</header><main style="overflow:auto">
${BAND_COLOURS.map((rgb, i) => `<div class="band" style="background:${css(rgb)}"><span>Band ${i + 1}</span></div>`).join('\n')}
</main></body></html>`;

/** A 100 px square turning once every 2 s (60 frames at 30 fps), drawn by lottie's SVG renderer in a 200 px box. */
const LOTTIE_ANIMATION = {
  v: '5.7.4',
  fr: 30,
  ip: 0,
  op: 60,
  w: 200,
  h: 200,
  nm: 'spinner',
  ddd: 0,
  assets: [],
  layers: [
    {
      ddd: 0,
      ind: 1,
      ty: 4,
      nm: 'square',
      sr: 1,
      ks: {
        o: { a: 0, k: 100 },
        r: {
          a: 1,
          k: [
            { i: { x: [0.667], y: [1] }, o: { x: [0.333], y: [0] }, t: 0, s: [0] },
            { t: 60, s: [360] },
          ],
        },
        p: { a: 0, k: [100, 100, 0] },
        a: { a: 0, k: [0, 0, 0] },
        s: { a: 0, k: [100, 100, 100] },
      },
      ao: 0,
      shapes: [
        {
          ty: 'gr',
          nm: 'box',
          it: [
            { ty: 'rc', nm: 'rect', d: 1, s: { a: 0, k: [100, 100] }, p: { a: 0, k: [0, 0] }, r: { a: 0, k: 0 } },
            { ty: 'fl', nm: 'fill', c: { a: 0, k: [...LOTTIE_RGB.map((v) => v / 255), 1] }, o: { a: 0, k: 100 }, r: 1 },
            {
              ty: 'tr',
              p: { a: 0, k: [0, 0] },
              a: { a: 0, k: [0, 0] },
              s: { a: 0, k: [100, 100] },
              r: { a: 0, k: 0 },
              o: { a: 0, k: 100 },
              sk: { a: 0, k: 0 },
              sa: { a: 0, k: 0 },
            },
          ],
        },
      ],
      ip: 0,
      op: 60,
      st: 0,
      bm: 0,
    },
  ],
};

const LOTTIE_PAGE = `<!doctype html><html><head><title>lottie</title>
<style>html,body{margin:0;background:#fff;font-family:sans-serif} div{position:absolute}</style></head><body>
<div style="left:0;top:0;width:1280px;height:120px;background:${css(HEADER_RGB)}"><h1 style="margin:0;padding:30px 20px">Launch</h1></div>
<div style="left:0;top:200px;width:800px;height:500px;background:${css(ARTICLE_RGB)}"><p style="margin:20px">The product is here.</p></div>
<div id="spinner" style="left:960px;top:300px;width:200px;height:200px"></div>
<div style="left:0;top:720px;width:1280px;height:80px;background:${css(FOOTER_RGB)}"></div>
<script src="/open/lib/lottie.js"></script><script>
  lottie.loadAnimation({ container: document.getElementById('spinner'), renderer: 'svg', loop: true, autoplay: true, animationData: ${JSON.stringify(LOTTIE_ANIMATION)} });
</script></body></html>`;

const ARTICLE_TOP = `<div style="height:120px;background:${css(HEADER_RGB)}"><h1 style="margin:0;padding:30px 20px">News</h1></div>
<div style="height:40px"></div>
<div style="height:500px;background:${css(ARTICLE_RGB)}"><p style="margin:0;padding:20px">The article's text.</p></div>`;

/** The document answers at once; a tracking pixel, an async tag and an embed never do. */
const HUNG_PAGE = `<!doctype html><html><head><title>hung third parties</title><style>html,body{margin:0;background:#fff;font-family:sans-serif}</style>
<script async src="/open/hang/tag.js"></script></head><body>
${ARTICLE_TOP}
<img src="/open/hang/pixel.gif" width="1" height="1" alt="">
<iframe src="/open/hang/embed" style="display:block;width:600px;height:100px;border:0"></iframe>
</body></html>`;

/** A blocking script midway through the body never answers: the document never finishes parsing. */
const HUNG_PARSE_PAGE = `<!doctype html><html><head><title>hung blocking script</title><style>html,body{margin:0;background:#fff;font-family:sans-serif}</style></head><body>
${ARTICLE_TOP}
<script src="/open/hang/blocking.js"></script>
<div style="height:300px;background:${css(FOOTER_RGB)}">Below the script.</div>
</body></html>`;

const MASONRY_PAGE = `<!doctype html><html><head><title>masonry</title>
<style>html,body{margin:0;background:#fff} .grid{width:1280px} .item{width:256px} .item img{display:block;width:240px;margin:8px}</style></head>
<body><div class="grid">
${MASONRY_COLOURS.map((_, i) => `<div class="item"><img src="/open/masonry/${i}.png" width="240" height="${masonryHeight(i)}" alt=""></div>`).join('\n')}
</div><script src="/open/lib/masonry.js"></script><script>new Masonry('.grid', { itemSelector: '.item', columnWidth: 256 });</script></body></html>`;

const REACT_PAGE = `<!doctype html><html><head><title>React</title><style>html,body{margin:0;background:#fff;font-family:sans-serif}</style></head>
<body><div id="root"></div>
<script src="/open/lib/react.js"></script><script src="/open/lib/react-dom.js"></script><script>
  const h = React.createElement;
  const json = (r) => r.json();
  function App() {
    const [data, setData] = React.useState(null);
    React.useEffect(() => {
      fetch('/open/api/a').then(json)
        .then((a) => fetch('/open/api/' + a.next)).then(json)
        .then((b) => fetch('/open/api/' + b.next)).then(json)
        .then(setData);
    }, []);
    if (!data) return h('p', { style: { padding: 20 } }, 'Loading…');
    return h('main', { style: { position: 'absolute', inset: 0, background: data.panel } },
      h('h1', { style: { margin: 0, padding: 20, color: '#fff' } }, data.title),
      h('section', { style: { position: 'absolute', left: 100, top: 200, width: 400, height: 200, background: data.card } }, data.items.join(', ')));
  }
  ReactDOM.createRoot(document.getElementById('root')).render(h(App));
</script></body></html>`;

const iframePage = (frameOrigin: string): string => `<!doctype html><html><head><title>cross-site lazy iframe</title>
<style>html,body{margin:0;background:#fff;font-family:sans-serif}</style></head><body>
<div style="position:relative;height:3200px">
<div style="height:120px;background:${css(HEADER_RGB)}"><h1 style="margin:0;padding:30px 20px">Contact</h1></div>
<iframe loading="lazy" src="${frameOrigin}/open/frame" style="position:absolute;left:${FRAME_BOX.left}px;top:${FRAME_BOX.top}px;width:${FRAME_BOX.width}px;height:${FRAME_BOX.height}px;border:0"></iframe>
</div></body></html>`;

const FRAME_DOCUMENT = `<!doctype html><html><head><title>map</title><style>html,body{margin:0;height:100%;background:${css(FRAME_RGB)}}</style></head><body></body></html>`;

/** A library's browser bundle, by its path beside the package's package.json (react's exports map names no file under umd/). */
function library(packageJson: string, path: string): string {
  return readFileSync(join(dirname(packageJson), path), 'utf8');
}

function solidPng(rgb: Rgb): Buffer {
  const png = new PNG({ width: 8, height: 8 });
  for (let i = 0; i < png.data.length; i += 4) png.data.set([...rgb, 255], i);
  return PNG.sync.write(png);
}

export interface OpenWebPagesServer {
  url: string;
  /** The second origin (`localhost`, another port: another site), which serves the iframe's document. */
  frameUrl: string;
  /** The requests held open, never answered, by path, in the order they came. */
  hung: string[];
  stop(): Promise<void>;
}

export async function startOpenWebPages(): Promise<OpenWebPagesServer> {
  const libraries: Record<string, [string, string]> = {
    '/open/lib/aos.js': [library(require.resolve('aos/package.json'), 'dist/aos.js'), 'text/javascript'],
    '/open/lib/aos.css': [library(require.resolve('aos/package.json'), 'dist/aos.css'), 'text/css'],
    '/open/lib/gsap.js': [library(require.resolve('gsap/package.json'), 'dist/gsap.min.js'), 'text/javascript'],
    '/open/lib/ScrollTrigger.js': [library(require.resolve('gsap/package.json'), 'dist/ScrollTrigger.min.js'), 'text/javascript'],
    '/open/lib/lottie.js': [library(require.resolve('lottie-web/package.json'), 'build/player/lottie.min.js'), 'text/javascript'],
    '/open/lib/masonry.js': [library(require.resolve('masonry-layout/package.json'), 'dist/masonry.pkgd.min.js'), 'text/javascript'],
    '/open/lib/react.js': [library(require.resolve('react/package.json'), 'umd/react.production.min.js'), 'text/javascript'],
    '/open/lib/react-dom.js': [library(require.resolve('react-dom/package.json'), 'umd/react-dom.production.min.js'), 'text/javascript'],
  };
  const api: Record<string, unknown> = {
    '/open/api/a': { next: 'b' },
    '/open/api/b': { next: 'c' },
    '/open/api/c': { title: 'Orders', panel: css(REACT_PANEL_RGB), card: css(REACT_CARD_RGB), items: ['12 new', '3 late'] },
  };
  const images = MASONRY_COLOURS.map(solidPng);
  const hung: string[] = [];

  const frameServer: Server = createServer((req, res) => {
    if (req.url === '/open/frame') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(FRAME_DOCUMENT);
    res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
  });
  await new Promise<void>((resolve) => frameServer.listen(0, '127.0.0.1', resolve));
  const frameUrl = `http://localhost:${(frameServer.address() as AddressInfo).port}`;

  const pages: Record<string, string> = {
    '/open/aos': AOS_PAGE,
    '/open/gsap': GSAP_PAGE,
    '/open/io': IO_PAGE,
    '/open/app-shell': APP_SHELL_PAGE,
    '/open/lottie': LOTTIE_PAGE,
    '/open/hung': HUNG_PAGE,
    '/open/hung-parse': HUNG_PARSE_PAGE,
    '/open/masonry': MASONRY_PAGE,
    '/open/react': REACT_PAGE,
    '/open/iframe': iframePage(frameUrl),
  };

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    // Held open without a byte of answer until the server stops: a blocked CDN, a dead ad server.
    if (path.startsWith('/open/hang/')) return void hung.push(path);
    const image = /^\/open\/masonry\/(\d+)\.png$/.exec(path);
    if (image && images[Number(image[1])]) {
      const i = Number(image[1]);
      setTimeout(() => {
        if (!req.socket.destroyed) res.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'no-store' }).end(images[i]);
      }, masonryDelay(i));
      return;
    }
    if (api[path]) {
      setTimeout(() => {
        if (!req.socket.destroyed) res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(api[path]));
      }, API_DELAY_MS);
      return;
    }
    if (libraries[path]) return void res.writeHead(200, { 'content-type': libraries[path][1] }).end(libraries[path][0]);
    if (pages[path]) return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(pages[path]);
    res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    frameUrl,
    hung,
    stop: async () => {
      for (const s of [server, frameServer]) {
        s.closeAllConnections();
        await new Promise<void>((resolve) => s.close(() => resolve()));
      }
    },
  };
}
