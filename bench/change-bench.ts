/**
 * npx ts-node --transpile-only bench/change-bench.ts — what a change-history comparison costs (issue 20: target
 * ≤ 50 ms for 1280×800 and ≤ 600 ms for a 1280×16384 full page on this machine).
 *
 * Two versions of a realistic page (header, text, cards, a gradient; the second with one card recoloured and a
 * line of text changed) are captured as PNGs by real Chromium at 1280×800 and as a 1280×16384 full page, then
 * PixelImageDiffer (the service's own differ) compares them. Printed: the median of BENCH_RUNS runs (default 7)
 * of compare() and diffImage(), and where compare()'s time goes — decoding both PNGs with sharp (in parallel, as
 * the differ does) vs pixelmatch on the decoded pixels — plus the equal-bytes shortcut.
 */
import { performance } from 'node:perf_hooks';
import pixelmatch from 'pixelmatch';
import puppeteer from 'puppeteer';
import sharp from 'sharp';
import { CHROME_ARGS } from '../src/adapters/capture/browser-pool';
import { findChrome } from '../src/adapters/capture/capture-options';
import { PixelImageDiffer } from '../src/modules/screenshots/infrastructure/pixel-image-differ';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const WIDTH = 1280;
const SIZES = [
  { label: '1280×800', height: 800, fullPage: false },
  { label: '1280×16384', height: 16384, fullPage: true },
];

/** A page of `height` px: sections of text and coloured cards; `changed` recolours one card and rewords one line. */
function page(height: number, changed: boolean, shifted = false): string {
  const sections: string[] = [];
  for (let i = 0; sections.length * 400 < height; i++) {
    const colour = changed && i === 1 ? '#c2410c' : ['#2454d6', '#0f766e', '#7c3aed', '#b45309'][i % 4];
    const text = changed && i === 0 ? 'Prices changed today: see the new plans below.' : 'Everything on this line stays the same between captures.';
    sections.push(`<section><h2>Section ${i + 1}</h2><p>${text} Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor
      incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris.</p>
      <div class="cards"><div class="card" style="border-top-color:${colour}"></div><div class="card"></div><div class="card"></div></div></section>`);
  }
  return `<!doctype html><html><head><style>
    html,body{margin:0;font:18px/1.5 sans-serif;color:#1d2330;background:#fff}
    header{height:120px;background:linear-gradient(90deg,#111a2e,#2454d6);color:#fff;padding:0 48px;display:flex;align-items:center;font-size:40px}
    section{height:400px;box-sizing:border-box;padding:24px 48px;overflow:hidden}
    h2{margin:0 0 8px} .cards{display:flex;gap:24px;margin-top:16px}
    .card{flex:1;height:140px;border-radius:12px;background:#eef1f7;border-top:12px solid #999}
    #end{height:${height}px;position:absolute;top:0;left:0;width:1px}
  </style></head><body><div id="end"></div>${shifted ? '<div style="height:24px;background:#fef0c7">A new banner</div>' : ''}<header>Acme — ${changed ? 'new' : 'old'} plans</header>${sections.join('')}</body></html>`;
}

async function capture(): Promise<Record<string, { older: Buffer; newer: Buffer; shifted: Buffer }>> {
  const browser = await puppeteer.launch({ executablePath: findChrome(process.env.CHROME_PATH), headless: 'shell', args: [...CHROME_ARGS] });
  try {
    const tab = await browser.newPage();
    await tab.setViewport({ width: WIDTH, height: 800 });
    const out: Record<string, { older: Buffer; newer: Buffer; shifted: Buffer }> = {};
    for (const size of SIZES) {
      const shots: Buffer[] = [];
      for (const [changed, shifted] of [
        [false, false],
        [true, false],
        [false, true],
      ]) {
        await tab.setContent(page(size.height, changed, shifted), { waitUntil: 'load' });
        const png = await tab.screenshot({
          type: 'png',
          ...(size.fullPage ? { clip: { x: 0, y: 0, width: WIDTH, height: size.height }, captureBeyondViewport: true } : {}),
        });
        shots.push(Buffer.from(png));
      }
      out[size.label] = { older: shots[0], newer: shots[1], shifted: shots[2] };
    }
    return out;
  } finally {
    await browser.close();
  }
}

async function median(runs: number, call: () => Promise<unknown>): Promise<number> {
  await call(); // warm-up (sharp and V8 first-call costs)
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await call();
    ms.push(performance.now() - start);
  }
  ms.sort((a, b) => a - b);
  return ms[Math.floor(ms.length / 2)];
}

/**
 * A possible speed-up, measured here only (src is unchanged): pixelmatch on the bands of rows that differ. Equal
 * rows are found with memcmp (Buffer.compare); each band keeps 2 equal rows above and below, which is all the
 * neighbourhood pixelmatch's anti-aliasing test reads (a pixel's 3×3 neighbours and theirs), so the count is the
 * same as on the whole image.
 */
function bandedPixelmatch(a: Buffer, b: Buffer, width: number, height: number): number {
  const stride = width * 4;
  const MARGIN = 2;
  let changed = 0;
  let y = 0;
  while (y < height) {
    if (a.compare(b, y * stride, (y + 1) * stride, y * stride, (y + 1) * stride) === 0) {
      y++;
      continue;
    }
    let end = y + 1; // first row after the band of differing rows (gaps shorter than 2 × MARGIN joined)
    for (let equalRun = 0; end < height && equalRun <= 2 * MARGIN; end++) {
      equalRun = a.compare(b, end * stride, (end + 1) * stride, end * stride, (end + 1) * stride) === 0 ? equalRun + 1 : 0;
      if (equalRun > 2 * MARGIN) {
        end -= 2 * MARGIN;
        break;
      }
    }
    const top = Math.max(0, y - MARGIN);
    const bottom = Math.min(height, end + MARGIN);
    changed += pixelmatch(a.subarray(top * stride, bottom * stride), b.subarray(top * stride, bottom * stride), null, width, bottom - top, { threshold: 0.1 });
    y = bottom;
  }
  return changed;
}

function differingRows(a: Buffer, b: Buffer, width: number, height: number): number {
  const stride = width * 4;
  let rows = 0;
  for (let y = 0; y < height; y++) if (a.compare(b, y * stride, (y + 1) * stride, y * stride, (y + 1) * stride) !== 0) rows++;
  return rows;
}

const decode = (png: Buffer) => sharp(png, { limitInputPixels: false }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });

async function main(): Promise<void> {
  const images = await capture();
  const differ = new PixelImageDiffer();
  const none = { newer: [], older: [] };
  console.log(`change-bench: median of ${RUNS} runs (after one warm-up), sharp concurrency ${sharp.concurrency()}, ${process.version}`);
  for (const size of SIZES) {
    const { older, newer, shifted } = images[size.label];
    const meta = await sharp(newer, { limitInputPixels: false }).metadata();
    const result = await differ.compare(newer, older, none);
    const [a, b] = await Promise.all([decode(newer), decode(older)]);
    const pixels = { width: a.info.width, height: a.info.height };
    const row = {
      image: `${meta.width}×${meta.height} PNG ${(newer.length / 1024).toFixed(0)} KB`,
      changedPixels: result.changedInOverlap,
      compare: await median(RUNS, () => differ.compare(newer, older, none)),
      decodeBoth: await median(RUNS, () => Promise.all([decode(newer), decode(older)])),
      decodeOne: await median(RUNS, () => decode(newer)),
      pixelmatch: await median(RUNS, async () => pixelmatch(a.data, b.data, null, pixels.width, pixels.height, { threshold: 0.1 })),
      banded: await median(RUNS, async () => bandedPixelmatch(a.data, b.data, pixels.width, pixels.height)),
      bandedCount: bandedPixelmatch(a.data, b.data, pixels.width, pixels.height),
      // compare() as it would be with the banded pixelmatch: decode both, then only the differing rows.
      proposed: await median(RUNS, async () => {
        const [x, y] = await Promise.all([decode(newer), decode(older)]);
        return bandedPixelmatch(x.data, y.data, x.info.width, Math.min(x.info.height, y.info.height));
      }),
      diffImage: await median(RUNS, () => differ.diffImage(newer, older, none)),
      // diffImage() ends by encoding an RGBA buffer of the newer image's size as PNG (compressionLevel 6).
      encode6: await median(RUNS, () =>
        sharp(a.data, { raw: { ...pixels, channels: 4 }, limitInputPixels: false })
          .png({ compressionLevel: 6 })
          .toBuffer(),
      ),
      encode2: await median(RUNS, () =>
        sharp(a.data, { raw: { ...pixels, channels: 4 }, limitInputPixels: false })
          .png({ compressionLevel: 2 })
          .toBuffer(),
      ),
      equalBytes: await median(RUNS, () => differ.compare(newer, newer, none)),
    };
    const ms = (n: number) => `${n.toFixed(1)} ms`;
    console.log(
      `${size.label}: ${row.image}, ${row.changedPixels} changed pixels — compare() ${ms(row.compare)} ` +
        `(decode both ${ms(row.decodeBoth)}, one ${ms(row.decodeOne)}; pixelmatch ${ms(row.pixelmatch)}), equal bytes ${ms(row.equalBytes)}; ` +
        `diffImage() ${ms(row.diffImage)} (of which PNG encoding at level 6 ${ms(row.encode6)}; level 2 would take ${ms(row.encode2)}); ` +
        `pixelmatch on differing row bands only ${ms(row.banded)} (${row.bandedCount} changed pixels${row.bandedCount === row.changedPixels ? ', the same count' : ', A DIFFERENT COUNT'}), ` +
        `so compare() with it: ${ms(row.proposed)}`,
    );
    // The worst case for the banded variant: a banner inserted at the top moves every row below it.
    const [c, d] = await Promise.all([decode(shifted), decode(older)]);
    const shiftedRow = {
      changedPixels: (await differ.compare(shifted, older, none)).changedInOverlap,
      compare: await median(RUNS, () => differ.compare(shifted, older, none)),
      banded: await median(RUNS, async () => bandedPixelmatch(c.data, d.data, c.info.width, Math.min(c.info.height, d.info.height))),
      differingRows: differingRows(c.data, d.data, c.info.width, Math.min(c.info.height, d.info.height)),
    };
    console.log(
      `${size.label}, everything moved down 24 px by a new banner: ${shiftedRow.changedPixels} changed pixels — compare() ${ms(shiftedRow.compare)}, ` +
        `banded pixelmatch ${ms(shiftedRow.banded)} (${shiftedRow.differingRows} of ${Math.min(c.info.height, d.info.height)} rows differ)`,
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
