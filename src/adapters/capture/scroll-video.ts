import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'puppeteer';
import type { ResolvedOutput } from '../../shared/domain/capture-option-rules';
import { CaptureFailure, type CaptureResult } from '../../modules/screenshots/application/capture.port';

const run = promisify(execFile);

type Video = NonNullable<ResolvedOutput['video']>;

/** Still time at the top before the scroll starts and at the bottom after it ends, so a viewer sees both ends. */
const HOLD_MS = 500;
/** WebM: frames a second (Chromium's screencast frames, each held until the next one). */
const WEBM_FPS = 25;
/** GIF: fewer frames and at most this wide, so a 5 s scroll stays a few megabytes. */
const GIF = { fps: 12, maxWidth: 800 } as const;
/** ffmpeg's own bound for encoding the frames (a stuck encoder must not hold the capture forever). */
const ENCODE_TIMEOUT_MS = 30_000;

/**
 * The ffmpeg to run: FFMPEG_PATH when set, else `ffmpeg` on the PATH. A missing one fails the capture in words
 * (every other format works without it), never as a browser crash.
 */
export function findFfmpeg(explicit: string | null | undefined, path = process.env.PATH ?? ''): string {
  const candidates = explicit
    ? [explicit]
    : path
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, 'ffmpeg'));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // the next one
    }
  }
  throw new CaptureFailure(
    'page',
    explicit
      ? `Videos need ffmpeg, and FFMPEG_PATH=${explicit} is not an executable file`
      : 'Videos need ffmpeg, which this server does not have (install it, e.g. `npm run setup`, or set FFMPEG_PATH)',
  );
}

/**
 * Scrolls the page smoothly from its top to its bottom in `durationMs` (eased in and out, one step per frame), after
 * and before a still moment; resolves when the bottom has been shown. Runs in the page (a string: this file is
 * compiled without the DOM's types).
 */
const SMOOTH_SCROLL = `async ({ durationMs, holdMs, maxDistance }) => {
  const root = document.scrollingElement || document.documentElement;
  const distance = Math.max(0, Math.min(root.scrollHeight - window.innerHeight, maxDistance));
  const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  window.scrollTo(0, 0);
  await pause(holdMs);
  const start = performance.now();
  await new Promise((resolve) => {
    const step = (now) => {
      const t = Math.min(1, Math.max(0, now - start) / durationMs);
      const eased = t < 0.5 ? 2 * t * t : 1 - Math.pow(-2 * t + 2, 2) / 2;
      window.scrollTo(0, Math.round(distance * eased));
      if (t < 1) requestAnimationFrame(step);
      else resolve();
    };
    requestAnimationFrame(step);
  });
  // The screencast sends a frame only when the screen changes, and its last frame can be lost when it stops: the
  // bottom is shown in several frames (a pixel up and back), before and after the still moment.
  const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
  const nudge = async () => {
    for (let i = 0; i < 3; i++) {
      window.scrollTo(0, Math.max(0, distance - 1));
      await frame();
      window.scrollTo(0, distance);
      await frame();
    }
  };
  await nudge();
  await pause(holdMs);
  await nudge();
  return distance;
}`;

/** Width × height of a video file, as ffmpeg reads its first stream. */
async function videoSize(ffmpeg: string, file: string): Promise<{ width: number; height: number }> {
  // `ffmpeg -i` alone exits 1 ("no output file") after printing the streams: the stream line is what is read.
  const answer = await run(ffmpeg, ['-hide_banner', '-i', file], { timeout: ENCODE_TIMEOUT_MS }).catch((err: { stderr?: string }) => ({
    stderr: err.stderr ?? '',
  }));
  const match = /Video: .*?(\d{2,5})x(\d{2,5})/.exec(answer.stderr);
  if (!match) throw new Error('ffmpeg did not report the video size');
  return { width: Number(match[1]), height: Number(match[2]) };
}

/**
 * A video of a smooth scroll through the page at the viewport's size (docs/outputs.md, "Scrolling video"): Chromium's
 * screencast while the page scrolls, encoded by ffmpeg as WebM (VP9), or re-encoded as a GIF with one palette for the
 * whole video. Like a PDF, it comes with a PNG of the first viewport for its thumbnail.
 */
export async function recordScrollVideo(
  page: Page,
  video: Video,
  options: { ffmpegPath?: string | null; fastPngEncoding: boolean; maxDistance: number },
): Promise<CaptureResult> {
  const ffmpeg = findFfmpeg(options.ffmpegPath);
  await page.evaluate('window.scrollTo(0, 0)');
  const preview = await page.screenshot({ type: 'png', captureBeyondViewport: false, optimizeForSpeed: options.fastPngEncoding });
  const dir = await mkdtemp(join(tmpdir(), 'scroll-video-'));
  try {
    // Chromium's screencast frames are kept as they come, each with its time, and encoded once the scroll is over:
    // an encoder fed live (puppeteer's screencast()) drops the frames it has not taken when it is stopped, which on
    // a loaded machine is the end of the scroll.
    const frames: Array<{ data: string; at: number }> = [];
    const session = await page.createCDPSession();
    session.on('Page.screencastFrame', (frame: { data: string; sessionId: number; metadata: { timestamp?: number } }) => {
      frames.push({ data: frame.data, at: frame.metadata.timestamp ?? Date.now() / 1000 });
      session.send('Page.screencastFrameAck', { sessionId: frame.sessionId }).catch(() => undefined);
    });
    try {
      await page.bringToFront();
      await session.send('Page.startScreencast', { format: 'jpeg', quality: 90, everyNthFrame: 1 });
      await page.evaluate(`(${SMOOTH_SCROLL})(${JSON.stringify({ durationMs: video.scrollDurationMs, holdMs: HOLD_MS, maxDistance: options.maxDistance })})`);
      await session.send('Page.stopScreencast');
    } finally {
      await session.detach().catch(() => undefined);
    }
    if (frames.length === 0) throw new CaptureFailure('page', 'Chromium sent no frame of the page while it scrolled');
    // Each frame lasts until the next one came; the last one the still half second at the bottom.
    const list: string[] = [];
    for (const [i, frame] of frames.entries()) {
      const name = `frame-${String(i).padStart(5, '0')}.jpg`;
      await writeFile(join(dir, name), Buffer.from(frame.data, 'base64'));
      const next = frames[i + 1]?.at ?? frame.at + HOLD_MS / 1000;
      list.push(`file '${name}'`, `duration ${Math.max(0.001, next - frame.at).toFixed(3)}`);
    }
    list.push(list[list.length - 2]); // the concat demuxer takes the last file's duration only when it is named again
    await writeFile(join(dir, 'frames.txt'), list.join('\n') + '\n');
    const input = ['-hide_banner', '-loglevel', 'error', '-f', 'concat', '-safe', '0', '-i', join(dir, 'frames.txt')];
    const file = join(dir, `scroll.${video.format}`);
    const encode =
      video.format === 'gif'
        ? [
            '-vf',
            `fps=${GIF.fps},scale='min(${GIF.maxWidth},iw)':-2:flags=lanczos,split[a][b];[a]palettegen=stats_mode=diff[p];[b][p]paletteuse=dither=bayer:bayer_scale=5`,
            '-loop',
            '0',
          ]
        : [
            '-vf',
            `fps=${WEBM_FPS},pad=ceil(iw/2)*2:ceil(ih/2)*2`,
            '-c:v',
            'libvpx-vp9',
            '-crf',
            '32',
            '-b:v',
            '0',
            '-deadline',
            'realtime',
            '-cpu-used',
            '8',
            '-pix_fmt',
            'yuv420p',
          ];
    await run(ffmpeg, [...input, ...encode, '-y', file], { timeout: ENCODE_TIMEOUT_MS });
    const data = await readFile(file);
    return {
      data,
      format: video.format,
      ...(await videoSize(ffmpeg, file)),
      preview: Buffer.from(preview.buffer, preview.byteOffset, preview.byteLength),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
