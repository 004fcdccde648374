import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import './puppeteer-debug';
import { launch, TargetType, type Browser, type BrowserContext, type LaunchOptions, type Page, type Target } from 'puppeteer';

import type { HostResolver } from '../../shared/url-policy';
import { CaptureFailure, ProxyFailure } from '../../modules/screenshots/application/capture.port';
import type { ProxyUrl } from '../../shared/domain/proxy-url';
import { findChrome, type CaptureSettings } from './capture-options';
import { EgressProxy, UpstreamRefused, type CheckedUpstream, type EgressListener } from './egress-proxy';
import type { EgressExplainer } from './navigation-egress';
import { within } from '../../shared/domain/within';
import { errorMessage } from '../../shared/domain/error-message';
import { CaptureAdmission, defaultAdmissionLimits, type LoadProbe } from './admission';

export const CHROME_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  // WebRTC's ICE/STUN traffic is UDP and would bypass the egress proxy entirely (measured: a page can
  // send STUN packets to 127.0.0.1 without this); only proxied candidates remain.
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
];

/** How long a graceful browser.close() may take before the process group is killed. */
const GRACEFUL_CLOSE_MS = 5_000;
/** Closing a context should take milliseconds; a slow close means the browser is wedged. */
const CONTEXT_CLOSE_MS = 5_000;
const CONTEXT_CREATE_MS = 10_000;
/**
 * How long a spare's renderer may take to answer one round trip before the lease opens a fresh tab instead. An idle
 * renderer answers in about a millisecond; one killed a moment ago answers never (its crash event arrives instead).
 */
const SPARE_PROBE_MS = 1_000;
const PROCESS_EXIT_WAIT_MS = 3_000;

export interface ContextLease {
  context: BrowserContext;
  /**
   * A new tab in the context. The first may have been opened before the lease (settings.prewarm), so its renderer
   * is already running; use this rather than context.newPage().
   */
  openPage(): Promise<Page>;
  /** Rejects with an infrastructure CaptureFailure when this lease's browser disconnects or crashes. */
  lost: Promise<never>;
  /** Synchronous twin of `lost`, for classifying an error that arrived before `lost` settled. */
  isLost(): boolean;
  /** Why the egress proxy recently refused a destination, to explain a failed navigation. */
  egress: EgressExplainer;
  /**
   * The page has loaded: the browser's next spare opens now, while this page settles and the cores are idle, rather
   * than while it loads (opening a context and a tab then slowed this capture's navigation by ~10 ms, measured in
   * docs/benchmark.md). A lease that never calls it gets the spare opened when it ends.
   */
  loaded(): void;
}

/** Collaborators a test may replace. */
export interface BrowserPoolDeps {
  /** Host name resolution for the egress proxy (tests inject a stub resolver; default: the system's). */
  resolveHost?: HostResolver;
  /** Starts a browser (tests inject a scripted fake, e.g. one whose contexts arrive late; default: puppeteer's launch). */
  launch?: (options: LaunchOptions) => Promise<Browser>;
  /** What the admission reads to size concurrency (tests inject fixed readings; default: the machine's). */
  load?: LoadProbe;
}

export interface LeaseOptions {
  /**
   * Epoch milliseconds by which the context must be open: the caller's own time limit (a scenario's time
   * left). The pool's fixed bound for creating a context applies as well, whichever ends first.
   */
  openBy?: number;
  /**
   * Every request of the context goes on through this proxy once the egress guard let it pass (a listener of the
   * egress proxy bound to it for this lease and closed with it: the prewarmed spare's, or one opened for the lease).
   */
  upstream?: ProxyUrl;
}

export interface PoolStats {
  browsers: number;
  /** Of `browsers`, those running at least one lease. */
  busyBrowsers: number;
  pids: number[];
  inFlight: number;
  waiting: number;
}

/**
 * A fresh context with one blank tab, opened before a lease needs it: the tab's renderer is already running. The
 * context talks to an egress listener of its own, not bound yet: the lease binds it to straight out or to its
 * upstream proxy (a context's proxy is fixed when it is made, so this is how a proxied capture can take a spare).
 */
interface Spare {
  context: BrowserContext;
  listener: EgressListener;
  page: Page;
  /** Its renderer died while it waited (killed for memory, crashed): a capture in it would fail as the page's fault. */
  crashed: boolean;
  /** Settles when the crash is reported. */
  died: Promise<void>;
}

/**
 * Whether the spare's renderer still answers. Chromium reports a renderer's death some milliseconds after it, so a
 * spare killed just before a lease took it (the OOM killer, a crash) still looks alive; one round trip through the
 * renderer tells, for about a millisecond per capture. Otherwise the capture would run in the dead tab and fail
 * as the page's fault ("The page crashed the browser tab") although the page was never loaded.
 */
async function rendererAnswers(spare: Spare): Promise<boolean> {
  if (spare.crashed) return false;
  const answered = spare.page.evaluate('1').then(() => true);
  const died = spare.died.then(() => false);
  return within(Promise.race([answered, died]), SPARE_PROBE_MS, () => new Error('The spare tab did not answer')).catch(() => false);
}

/**
 * What a lease cut off by a graceful shutdown returns: a promise that never settles. Failing it would make
 * the job runner record our own shutdown as the job's infrastructure failure (an attempt burnt, or the job
 * failed for good on its last attempt); this way the job stays unfinished, exactly as if the worker had
 * stopped, and is delivered again (Bull's stalled-job check, or the jobs table at the next start).
 */
function abandoned<T>(): Promise<T> {
  return new Promise<T>(() => undefined);
}

function isRunning(proc: ChildProcess): boolean {
  return proc.exitCode === null && proc.signalCode === null;
}

function waitForExit(proc: ChildProcess, ms: number): Promise<void> {
  if (!isRunning(proc)) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    proc.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Browsers of every pool in this process that are not shut down yet. If the process exits without
 * closing its pools (process.exit() in a script, an uncaught error), the exit hook still kills their
 * process groups and removes their profile directories; only a SIGKILL of Node can leak them.
 */
const notShutDown = new Set<PooledBrowser>();
let exitHookInstalled = false;

function registerForExitCleanup(browser: PooledBrowser): void {
  notShutDown.add(browser);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const remaining of notShutDown) remaining.killNow();
  });
}

function killProcessGroup(proc: ChildProcess): void {
  if (proc.pid === undefined) return;
  try {
    // The browser leads its own process group (puppeteer spawns it detached), so this also takes down
    // zygotes and renderers, and Chromium itself when the binary is a wrapper script that does not exec
    // (Debian's /usr/bin/chromium-headless-shell is one).
    process.kill(-proc.pid, 'SIGKILL');
  } catch {
    // ESRCH: the group is already gone, the normal case after a graceful close.
    if (isRunning(proc)) proc.kill('SIGKILL');
  }
}

/**
 * One Chromium process and its bookkeeping. Created synchronously so the pool can count leases
 * on a browser that is still starting.
 */
class PooledBrowser {
  /** Leases currently using this browser. */
  inFlight = 0;
  /** The next lease's context and tab, opened ahead (settings.prewarm); null when none is ready. */
  spare: Spare | null = null;
  /** A spare is being opened. */
  openingSpare = false;
  /** Leases ever handed out, for recycling. */
  leased = 0;
  /** No new leases; shut down once inFlight drops to 0. */
  retired = false;
  dead = false;

  readonly ready: Promise<Browser>;
  readonly lost: Promise<never>;
  private markLost!: (error: CaptureFailure) => void;
  private browser: Browser | null = null;
  private process: ChildProcess | null = null;
  private userDataDir: string | null = null;
  private terminating: Promise<void> | null = null;

  constructor(
    executablePath: () => string,
    extraArgs: () => Promise<string[]>,
    private readonly onDead: (browser: PooledBrowser) => void,
    private readonly launcher: (options: LaunchOptions) => Promise<Browser> = launch,
  ) {
    this.lost = new Promise<never>((_, reject) => {
      this.markLost = reject;
    });
    // Nobody may be racing against `lost` when the browser dies; that must not be an unhandled rejection.
    this.lost.catch(() => undefined);
    registerForExitCleanup(this);
    this.ready = this.launch(executablePath, extraArgs);
    this.ready.catch(() => undefined);
  }

  get pid(): number | undefined {
    return this.process?.pid;
  }

  private async launch(executablePath: () => string, extraArgs: () => Promise<string[]>): Promise<Browser> {
    try {
      const args = [...CHROME_ARGS, ...(await extraArgs())];
      this.userDataDir = await mkdtemp(join(tmpdir(), 'screenshot-chromium-'));
      const browser = await this.launcher({
        executablePath: executablePath(),
        headless: 'shell',
        args,
        // A fresh profile per browser: no cookies, cache or storage shared across recycles.
        userDataDir: this.userDataDir,
        // A pipe instead of a websocket: Chromium exits by itself if this Node process dies abruptly.
        pipe: true,
        defaultViewport: null,
        // Nest's shutdown hooks close the pool; puppeteer's own handlers would call process.exit().
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
      this.browser = browser;
      this.process = browser.process();
      browser.once('disconnected', () => this.died('Browser disconnected'));
      // The pipe can outlive a killed browser process (its orphaned helpers still hold it), so
      // 'disconnected' alone would leave captures hanging until their timeout.
      this.process?.once('exit', () => this.died('Browser process exited'));
      if (this.terminating) {
        // The pool was closed while we were starting.
        await browser.close().catch(() => undefined);
        throw new CaptureFailure('infrastructure', 'Browser pool is shut down');
      }
      return browser;
    } catch (error) {
      this.died(`Could not launch Chromium: ${errorMessage(error)}`);
      throw error instanceof CaptureFailure ? error : new CaptureFailure('infrastructure', `Could not launch Chromium: ${errorMessage(error)}`);
    }
  }

  /**
   * Declares the browser gone before it is closed, so every capture on it fails through `lost` as
   * infrastructure at once, instead of with whatever page-looking errors the closing browser produces first.
   */
  abandon(reason: string): void {
    this.died(reason);
  }

  private died(reason: string): void {
    if (this.dead) return;
    this.dead = true;
    this.markLost(new CaptureFailure('infrastructure', reason));
    this.onDead(this);
    // Reap what is left (renderers, the profile directory) even when nobody calls close().
    void this.terminate();
  }

  /** Ends this browser for good (process group and profile directory); idempotent. */
  terminate(): Promise<void> {
    this.terminating ??= this.doTerminate();
    return this.terminating;
  }

  private async doTerminate(): Promise<void> {
    this.retired = true;
    // Let a launch in progress finish first so its process can be found and killed.
    await this.ready.catch(() => undefined);
    const proc = this.process;
    if (this.browser?.connected && proc && isRunning(proc)) {
      await within(this.browser.close(), GRACEFUL_CLOSE_MS, () => new Error('close timed out')).catch(() => undefined);
    }
    this.died('Browser closed');
    if (proc) {
      killProcessGroup(proc);
      await waitForExit(proc, PROCESS_EXIT_WAIT_MS);
    }
    if (this.userDataDir) {
      await rm(this.userDataDir, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
    }
    notShutDown.delete(this);
  }

  /** Synchronous last resort for process exit, when no asynchronous work will run any more. */
  killNow(): void {
    if (this.process) killProcessGroup(this.process);
    if (this.userDataDir) {
      try {
        rmSync(this.userDataDir, { recursive: true, force: true, maxRetries: 2 });
      } catch {
        // Nothing more can be done while exiting.
      }
    }
  }
}

/**
 * Closes every tab a page opens by itself (window.open, target=_blank): only the tabs a capture opens are
 * wanted. Their requests would be checked by the egress proxy like any other; closing them saves the
 * renderer work and stops popups that open more popups.
 */
function closePopups(context: BrowserContext): void {
  context.on('targetcreated', (target: Target) => {
    if (target.type() !== TargetType.PAGE || !target.opener()) return;
    target
      .page()
      .then((popup) => popup?.close())
      .catch(() => undefined);
  });
}

/**
 * A few long-lived browsers, each serving several isolated incognito contexts at once.
 * Contexts rather than a browser per capture because a context costs milliseconds and a launch far more (figures:
 * docs/benchmark.md);
 * several browsers rather than one so a single browser process does not become the bottleneck and a
 * crash only takes down part of the capacity (see DESIGN.md: measure before changing the default).
 */
export class BrowserPool {
  private readonly slots: (PooledBrowser | null)[];
  /** Every browser not yet shut down, including retired ones still finishing their captures. */
  private readonly live = new Set<PooledBrowser>();
  private readonly permits: CaptureAdmission;
  private closing: Promise<void> | null = null;
  private chromePath: string | null = null;
  /** Every browser of the pool sends all its traffic through this one proxy; see egress-proxy.ts. */
  private readonly egress: EgressProxy;
  private egressStarted: Promise<EgressProxy> | null = null;
  /** Leases holding a permit right now (from the permit to the context's close). */
  private leases = 0;
  private readonly idleWaiters: (() => void)[] = [];
  /** A graceful shutdown has begun: no new lease starts. */
  private draining = false;
  /** The graceful shutdown's grace is over and the browsers are being closed under the leases still running. */
  private cutOff = false;

  constructor(
    private readonly settings: CaptureSettings,
    private readonly deps: BrowserPoolDeps = {},
  ) {
    this.slots = Array.from({ length: settings.browsers }, () => null);
    this.permits = new CaptureAdmission(defaultAdmissionLimits(settings.concurrency), deps.load);
    this.egress = new EgressProxy({
      allowPrivateNetworks: settings.allowPrivateNetworks,
      allowlist: settings.urlAllowlist,
      resolve: deps.resolveHost,
    });
  }

  /** Launches every browser now instead of on first use, so the first jobs do not pay for it. */
  async warmUp(): Promise<void> {
    this.assertOpen();
    const starting: Promise<Browser>[] = [];
    for (let i = 0; i < this.slots.length; i++) {
      const slot = this.slots[i];
      if (!slot || slot.dead || slot.retired) {
        const browser = this.start();
        this.slots[i] = browser;
        starting.push(browser.ready);
      }
    }
    await Promise.all(starting);
  }

  /**
   * Runs fn with a fresh incognito context, waiting FIFO for admission first (admission.ts sizes how many run).
   * The context is closed before the permit is released, whatever fn does; fn's result is handed back as soon as
   * fn has it, while the context closes (a few ms nobody waiting for the picture needs to pay). A failure is handed
   * back once the context is closed.
   * During a graceful shutdown (drain) no new lease starts and a lease cut off by the
   * shutdown never settles: see abandoned().
   */
  async withContext<T>(fn: (lease: ContextLease) => Promise<T>, options: LeaseOptions = {}): Promise<T> {
    if (this.draining) return abandoned<T>();
    this.assertOpen();
    let release: () => void;
    try {
      release = await this.permits.acquire();
    } catch (error) {
      // close() fails the waiters; a job that was only waiting for a permit has not failed either.
      if (this.draining) return abandoned<T>();
      throw error;
    }
    if (this.draining) {
      // Granted by a lease that finished during the drain: starting new work now would only be cut off.
      release();
      return abandoned<T>();
    }
    this.leases++;
    let handBack!: (result: T) => void;
    const early = new Promise<T>((resolve) => (handBack = resolve));
    const run = this.lease(async (lease) => {
      const result = await fn(lease);
      handBack(result);
      return result;
    }, options)
      .finally(() => {
        release();
        this.leases--;
        if (this.leases === 0) for (const wake of this.idleWaiters.splice(0)) wake();
      })
      // A result obtained before the cut-off is good, whenever its lease ended; a failure after it never settles.
      .catch((error: unknown) => {
        if (this.cutOff) return abandoned<T>();
        throw error;
      });
    return Promise.race([early, run]);
  }

  stats(): PoolStats {
    const live = [...this.live];
    return {
      browsers: live.length,
      busyBrowsers: live.filter((b) => b.inFlight > 0).length,
      pids: live.map((b) => b.pid).filter((pid): pid is number => pid !== undefined),
      inFlight: this.permits.inUse,
      waiting: this.permits.waiting,
    };
  }

  /**
   * For the application's shutdown, once no new jobs are delivered: starts no new lease, lets the leases in
   * flight finish for up to graceMs, then closes every browser. A lease cut off by the close never settles
   * (see abandoned()), so our own shutdown is never reported as the job's failure.
   */
  async drain(graceMs: number): Promise<void> {
    this.draining = true;
    if (this.leases > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => this.idleWaiters.push(resolve)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs))),
      ]);
      clearTimeout(timer);
    }
    this.cutOff = true;
    await this.close();
  }

  /** Closes every browser and waits until their processes are gone; later captures fail as infrastructure. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.permits.close(new CaptureFailure('infrastructure', 'Browser pool is shut down'));
      this.slots.fill(null);
      // Captures still running fail through `lost` first, before the closing browser fails them in other ways.
      for (const browser of this.live) browser.abandon('Browser pool is shut down');
      await Promise.all([...this.live].map((browser) => this.discard(browser)));
      await this.egress.close();
    })();
    return this.closing;
  }

  private async lease<T>(fn: (lease: ContextLease) => Promise<T>, options: LeaseOptions): Promise<T> {
    this.assertOpen();
    const browser = this.pick();
    try {
      const chromium = await browser.ready;
      // The proxy's own address passes the policy before anything else: a refused one costs neither a spare nor a context.
      const upstream = options.upstream ? await this.checkUpstream(options.upstream) : null;
      // Taken even by the lease that retires the browser (recycling): it is this browser's last use for it.
      const spare = this.takeSpare(browser);
      let context: BrowserContext;
      let listener: EgressListener | null = null;
      try {
        if (spare) {
          listener = spare.listener;
          // Bound once, for this lease only: the spare was never anyone else's and closes with this lease.
          listener.bind(upstream);
          context = spare.context;
        } else {
          if (upstream) {
            listener = await this.openListener();
            listener.bind(upstream);
          }
          context = await this.openContext(browser, chromium, options.openBy, listener);
        }
      } catch (error) {
        if (spare) await this.closeContext(browser, spare.context);
        await listener?.close();
        throw error instanceof CaptureFailure ? error : new CaptureFailure('infrastructure', `Could not open a route for the capture: ${errorMessage(error)}`);
      }
      let refilled = false;
      const loaded = (): void => {
        if (refilled) return;
        refilled = true;
        this.refillSpare(browser, chromium);
      };
      let ready = spare;
      const openPage = async (): Promise<Page> => {
        const first = ready;
        ready = null;
        if (first && (await rendererAnswers(first))) return first.page;
        if (first) void first.page.close().catch(() => undefined);
        return context.newPage();
      };
      try {
        return await fn({ context, openPage, lost: browser.lost, isLost: () => browser.dead, egress: listener ?? this.egress, loaded });
      } finally {
        loaded();
        await this.closeContext(browser, context);
        await listener?.close();
      }
    } finally {
      browser.inFlight--;
      if (browser.retired && browser.inFlight === 0) void this.discard(browser);
    }
  }

  /** The browser's ready spare, now the caller's; null when there is none (or its tab is gone or crashed). */
  private takeSpare(browser: PooledBrowser): Spare | null {
    const spare = browser.spare;
    browser.spare = null;
    if (spare && (spare.crashed || spare.page.isClosed())) {
      void this.closeSpare(browser, spare);
      return null;
    }
    return spare;
  }

  /**
   * Opens the browser's next spare in the background (settings.prewarm), unless it has one or takes no new
   * leases. Failing costs nothing but the head start: the next lease opens its own context, as without prewarm.
   * A wedged browser is retired by openContext, as for a lease.
   */
  private refillSpare(browser: PooledBrowser, chromium: Browser): void {
    if (!this.settings.prewarm || browser.spare || browser.openingSpare || !this.takesLeases(browser)) return;
    browser.openingSpare = true;
    void (async () => {
      let context: BrowserContext | null = null;
      let listener: EgressListener | null = null;
      try {
        listener = await this.egress.listener();
        context = await this.openContext(browser, chromium, undefined, listener);
        const page = await within(context.newPage(), CONTEXT_CREATE_MS, () => new Error('Opening a spare tab timed out'));
        // Retired, dead or shut down meanwhile: the spare would never be used.
        if (!this.takesLeases(browser)) throw new Error('no longer needed');
        let reportDeath!: () => void;
        const spare: Spare = { context, listener, page, crashed: false, died: new Promise<void>((resolve) => (reportDeath = resolve)) };
        page.once('error', () => {
          spare.crashed = true;
          reportDeath();
        });
        browser.spare = spare;
      } catch {
        void (async () => {
          if (context) await this.closeContext(browser, context);
          await listener?.close();
        })();
      } finally {
        browser.openingSpare = false;
      }
    })();
  }

  private takesLeases(browser: PooledBrowser): boolean {
    return !browser.retired && !browser.dead && !this.draining && !this.closing;
  }

  /** Closes a browser's spare: it takes no new leases. */
  private dropSpare(browser: PooledBrowser): void {
    const spare = browser.spare;
    browser.spare = null;
    if (spare) void this.closeSpare(browser, spare);
  }

  /** A spare nobody will use: its context, then its listener (never bound). */
  private async closeSpare(browser: PooledBrowser, spare: Spare): Promise<void> {
    await this.closeContext(browser, spare.context);
    await spare.listener.close();
  }

  /**
   * A new incognito context, within CONTEXT_CREATE_MS and by `openBy`. A context that arrives after the
   * caller gave up is closed on arrival: nobody else would, and it would live (with its renderer) as long
   * as the browser does.
   */
  private async openContext(
    browser: PooledBrowser,
    chromium: Browser,
    openBy: number | undefined,
    route: EgressListener | null = null,
  ): Promise<BrowserContext> {
    const callerLimit = openBy === undefined ? Number.POSITIVE_INFINITY : openBy - Date.now();
    const byCaller = callerLimit < CONTEXT_CREATE_MS;
    // Downloads are refused for the whole context: nothing a page serves is ever written to disk. A context with a
    // listener of its own talks to it instead of the browser's (loopback included, as with the browser's own switch).
    const creating = chromium.createBrowserContext({
      downloadBehavior: { policy: 'deny' },
      ...(route ? { proxyServer: route.proxyServer, proxyBypassList: ['<-loopback>'] } : {}),
    });
    try {
      const context = await Promise.race([
        within(creating, byCaller ? Math.max(1, callerLimit) : CONTEXT_CREATE_MS, () => new Error('Creating a browser context timed out')),
        browser.lost,
      ]);
      closePopups(context);
      return context;
    } catch (error) {
      creating.then(
        (late) => {
          if (!browser.dead) within(late.close(), CONTEXT_CLOSE_MS, () => new Error('Closing a browser context timed out')).catch(() => undefined);
        },
        () => undefined,
      );
      // Milliseconds of work that took CONTEXT_CREATE_MS: the browser is wedged, so no new lease goes to it.
      // (Running out of the caller's own time says nothing about the browser.)
      if (!byCaller) this.retire(browser);
      throw error instanceof CaptureFailure ? error : new CaptureFailure('infrastructure', `Could not open a browser context: ${errorMessage(error)}`);
    }
  }

  private assertOpen(): void {
    if (this.closing) throw new CaptureFailure('infrastructure', 'Browser pool is shut down');
  }

  /** The least busy browser; an empty slot counts as idle, but an idle running browser is preferred to a launch. */
  private pick(): PooledBrowser {
    let best = 0;
    let bestScore = Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.slots.length; i++) {
      const slot = this.slots[i];
      const usable = slot && !slot.dead && !slot.retired ? slot : null;
      if (!usable) this.slots[i] = null;
      const score = usable ? usable.inFlight : 0.5;
      if (score < bestScore) {
        best = i;
        bestScore = score;
      }
    }
    const browser = this.slots[best] ?? this.start();
    this.slots[best] = browser;
    browser.inFlight++;
    browser.leased++;
    if (browser.leased >= this.settings.recycleAfter) {
      // Later leases go to a fresh browser in this slot; this one closes after its last capture.
      browser.retired = true;
      this.slots[best] = null;
    }
    return browser;
  }

  private start(): PooledBrowser {
    const browser = new PooledBrowser(
      () => (this.chromePath ??= findChrome(this.settings.chromePath)),
      () => this.egressArgs(),
      (dead) => {
        const index = this.slots.indexOf(dead);
        if (index >= 0) this.slots[index] = null;
        // Its spare's context went with it; its listener would not.
        this.dropSpare(dead);
        // Captures still running on it fail through `lost`; nothing is left worth waiting for.
        void this.discard(dead);
      },
      this.deps.launch,
    );
    this.live.add(browser);
    // The first spare opens as soon as the browser is up, so even the first capture may find its tab ready.
    browser.ready.then(
      (chromium) => this.refillSpare(browser, chromium),
      () => undefined,
    );
    return browser;
  }

  /** The upstream proxy's own address checked by the URL policy; refused, it fails the capture in words naming it masked. */
  private async checkUpstream(upstream: ProxyUrl): Promise<CheckedUpstream> {
    try {
      return await this.egress.checkUpstream(upstream);
    } catch (error) {
      if (error instanceof UpstreamRefused) throw new ProxyFailure(error.message, error.proxy, 'policy');
      throw new CaptureFailure('infrastructure', `Could not open a route through the upstream proxy: ${errorMessage(error)}`);
    }
  }

  /** A listener of the egress proxy of the lease's own (a proxied lease that found no spare). */
  private async openListener(): Promise<EgressListener> {
    try {
      return await this.egress.listener();
    } catch (error) {
      throw new CaptureFailure('infrastructure', `Could not open a route through the upstream proxy: ${errorMessage(error)}`);
    }
  }

  /** For tests: browsers whose spare is ready for the next lease. */
  get readySpares(): number {
    return [...this.live].filter((browser) => browser.spare !== null).length;
  }

  /** For tests and leak checks: egress listeners (routes, spares) open right now. */
  get openEgressListeners(): number {
    return this.egress.openListeners;
  }

  /** Starts the proxy before the first browser launches; a browser never runs without it. */
  private async egressArgs(): Promise<string[]> {
    this.egressStarted ??= this.egress.start();
    try {
      return (await this.egressStarted).chromiumArgs();
    } catch (error) {
      this.egressStarted = null;
      throw new CaptureFailure('infrastructure', `Could not start the egress proxy: ${errorMessage(error)}`);
    }
  }

  /** Terminates a browser and forgets it. */
  private async discard(browser: PooledBrowser): Promise<void> {
    await browser.terminate();
    this.live.delete(browser);
  }

  /** No new leases for this browser; it shuts down once its last lease ends (see lease()). */
  private retire(browser: PooledBrowser): void {
    browser.retired = true;
    this.dropSpare(browser);
    const index = this.slots.indexOf(browser);
    if (index >= 0) this.slots[index] = null;
  }

  private async closeContext(browser: PooledBrowser, context: BrowserContext): Promise<void> {
    if (browser.dead) return;
    try {
      await within(context.close(), CONTEXT_CLOSE_MS, () => new Error('Closing a browser context timed out'));
    } catch {
      // A context that cannot be closed would leak its renderer; replace the whole browser instead.
      this.retire(browser);
    }
  }
}
