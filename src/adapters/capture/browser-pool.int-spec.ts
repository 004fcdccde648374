/**
 * The pool's own logic against a scripted fake browser (deps.launch), for what real Chromium cannot be made
 * to do on cue: a context that arrives late, a tab that never opens. Real-Chromium behaviour is covered by
 * puppeteer-page-capturer.spec.ts.
 */
import { once } from 'node:events';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { Browser, Page } from 'puppeteer';

import { BrowserPool, type ContextLease } from './browser-pool';
import { CaptureFailure, ProxyFailure } from '../../modules/screenshots/application/capture.port';
import { parseProxyUrl, type ProxyUrl } from '../../shared/domain/proxy-url';
import { PageServer } from '../../../test/support/page-server';
import { startHttpProxy, type RunningProxy } from '../../../test/support/proxy-servers';
import { resolveCaptureSettings, type CaptureSettings } from './capture-options';
import { PuppeteerPageCapturer } from './puppeteer-page-capturer';

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

class FakeContext {
  closed = 0;
  /** Every tab opened in this context, in order. */
  readonly pages: Page[] = [];
  /** When set, close() ends only when the test resolves it (a browser slow to dispose of the context). */
  closing: Deferred<void> | null = null;
  constructor(private readonly newPageAnswer: () => Promise<Page>) {}
  on(): this {
    return this;
  }
  async newPage(): Promise<Page> {
    const page = await this.newPageAnswer();
    this.pages.push(page);
    return page;
  }
  async close(): Promise<void> {
    this.closed += 1;
    await this.closing?.promise;
  }
}

/** A browser whose contexts arrive when the test says (`contexts` is the queue of answers still to give). */
class FakeBrowser {
  connected = true;
  closed = 0;
  readonly requested: Deferred<FakeContext>[] = [];
  constructor(private readonly newPage: () => Promise<Page>) {}
  once(): this {
    return this;
  }
  process(): null {
    return null;
  }
  async close(): Promise<void> {
    this.closed += 1;
    this.connected = false;
  }
  /** The options of every context asked for, in order (a spare's names its own egress listener). */
  readonly options: { proxyServer?: string }[] = [];
  createBrowserContext(options: { proxyServer?: string } = {}): Promise<FakeContext> {
    const answer = deferred<FakeContext>();
    this.requested.push(answer);
    this.options.push(options);
    return answer.promise;
  }
  /** Answers every pending context request with a fresh context. */
  giveContexts(): FakeContext[] {
    return this.requested.splice(0).map((answer) => {
      const context = new FakeContext(this.newPage);
      answer.resolve(context);
      return context;
    });
  }
}

/** A tab as the pool sees it: it asks whether it is closed, listens for its crash and asks its renderer for a `1`. */
function fakePage(closed = false): Page {
  return { isClosed: () => closed, once: () => undefined, evaluate: async () => 1, close: async () => undefined } as unknown as Page;
}

/** A tab whose renderer was killed: it never answers, and its crash is reported when the test says. */
function deadRendererPage(): { page: Page; reportCrash: () => void; closed: () => boolean } {
  let onError: (() => void) | undefined;
  let closed = false;
  const page = {
    isClosed: () => closed,
    once: (event: string, handler: () => void) => {
      if (event === 'error') onError = handler;
    },
    evaluate: () => new Promise(() => undefined),
    close: async () => {
      closed = true;
    },
  } as unknown as Page;
  return { page, reportCrash: () => onError?.(), closed: () => closed };
}

function fakeLauncher(newPage: () => Promise<Page> = async () => fakePage()) {
  const browsers: FakeBrowser[] = [];
  const launch = async (): Promise<Browser> => {
    const browser = new FakeBrowser(newPage);
    browsers.push(browser);
    return browser as unknown as Browser;
  };
  return { browsers, launch };
}

function settings(overrides: Partial<CaptureSettings> = {}): CaptureSettings {
  // Any executable will do: the fake launcher never runs it. No spare unless a test asks for one: these tests
  // script every context request, and a spare's would be one more.
  return resolveCaptureSettings({ browsers: 1, concurrency: 2, chromePath: process.execPath, allowPrivateNetworks: true, prewarm: false, ...overrides });
}

/** Settles within ms, or reports that it did not. */
async function outcomeWithin<T>(promise: Promise<T>, ms: number): Promise<{ settled: false } | { settled: true; value?: T; error?: unknown }> {
  let timer: NodeJS.Timeout | undefined;
  const pending = new Promise<{ settled: false }>((resolve) => (timer = setTimeout(() => resolve({ settled: false }), ms)));
  try {
    return await Promise.race([
      promise.then(
        (value) => ({ settled: true as const, value }),
        (error: unknown) => ({ settled: true as const, error }),
      ),
      pending,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits for the next macrotask turns, so chained promise work (a late context's close) has run. */
const flush = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('BrowserPool with a scripted browser', () => {
  let pool: BrowserPool | null = null;
  afterEach(async () => {
    jest.useRealTimers();
    await pool?.close();
    pool = null;
  });

  describe('a browser context that arrives after its creation timed out', () => {
    it("after the pool's own 10 s bound: the late context is closed on arrival and the wedged browser is retired", async () => {
      const fake = fakeLauncher();
      pool = new BrowserPool(settings(), { launch: fake.launch });
      // A lease already running on the browser keeps it alive after it is retired.
      const finishFirst = deferred<string>();
      const first = pool.withContext(() => finishFirst.promise);
      await waitFor(() => fake.browsers[0]?.requested.length === 1);
      const [firstContext] = fake.browsers[0].giveContexts();

      jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
      const leased = jest.fn(async () => 'never');
      const attempt = pool.withContext(leased);
      attempt.catch(() => undefined);
      await waitFor(() => fake.browsers[0].requested.length === 1);
      await jest.advanceTimersByTimeAsync(10_000);
      await expect(attempt).rejects.toEqual(new CaptureFailure('infrastructure', 'Could not open a browser context: Creating a browser context timed out'));
      jest.useRealTimers();

      const [late] = fake.browsers[0].giveContexts();
      await flush();
      expect(late.closed).toBe(1);
      expect(leased).not.toHaveBeenCalled();

      // No new lease goes to the wedged browser: the next one launches another.
      const next = pool.withContext(async () => 'ok');
      await waitFor(() => fake.browsers.length === 2 && fake.browsers[1].requested.length === 1);
      fake.browsers[1].giveContexts();
      await expect(next).resolves.toBe('ok');
      // The wedged browser is shut down once its last lease has ended.
      expect(pool.stats().browsers).toBe(2);
      finishFirst.resolve('done');
      await expect(first).resolves.toBe('done');
      expect(firstContext.closed).toBe(1);
      await waitFor(() => pool!.stats().browsers === 1);
    });

    it("after the caller's own deadline (openBy): the late context is closed on arrival and the browser stays in service", async () => {
      const fake = fakeLauncher();
      pool = new BrowserPool(settings(), { launch: fake.launch });
      const started = Date.now();
      const attempt = pool.withContext(async () => 'never', { openBy: Date.now() + 200 });
      await expect(attempt).rejects.toEqual(new CaptureFailure('infrastructure', 'Could not open a browser context: Creating a browser context timed out'));
      expect(Date.now() - started).toBeLessThan(2_000);

      const [late] = fake.browsers[0].giveContexts();
      await flush();
      expect(late.closed).toBe(1);

      // Running out of the caller's time says nothing about the browser: the next lease uses it again.
      const next = pool.withContext(async () => 'ok');
      await waitFor(() => fake.browsers[0].requested.length === 1);
      fake.browsers[0].giveContexts();
      await expect(next).resolves.toBe('ok');
      expect(fake.browsers).toHaveLength(1);
    });
  });

  describe('the spare (prewarm): a context with an open tab, ready before the lease', () => {
    /** A pool of one browser whose first spare has opened (its tabs from newPage). */
    const poolWithSpare = async (newPage?: () => Promise<Page>, overrides: Partial<CaptureSettings> = {}) => {
      const fake = fakeLauncher(newPage);
      const spared = new BrowserPool(settings({ prewarm: true, ...overrides }), { launch: fake.launch });
      pool = spared; // closed after the test
      await spared.warmUp();
      await waitFor(() => fake.browsers[0].requested.length === 1);
      const [spare] = fake.browsers[0].giveContexts();
      await flush();
      return { fake, spare, spared };
    };

    it('is opened when the browser starts; the next lease takes it without opening a context, and the one after that again', async () => {
      const { fake, spare, spared } = await poolWithSpare();

      let leased: { context: unknown; page: Page; second: Page } | null = null;
      await spared.withContext(async (lease) => {
        leased = { context: lease.context, page: await lease.openPage(), second: await lease.openPage() };
      });

      expect(leased!.context).toBe(spare);
      // The spare's tab first; any further tab is a new one in the same context.
      expect(spare.pages).toEqual([leased!.page, leased!.second]);
      expect(spare.closed).toBe(1);
      // The lease asked for no context of its own: the one requested meanwhile (once its listener is up) is the next spare.
      await waitFor(() => fake.browsers[0].requested.length >= 1);
      await flush();
      expect(fake.browsers[0].requested).toHaveLength(1);
      const [next] = fake.browsers[0].giveContexts();
      await flush();
      await spared.withContext(async (lease) => expect(lease.context).toBe(next));
    });

    describe('its context talks to an egress listener of its own, bound by the lease that takes it', () => {
      let pages: PageServer;
      let upstream: RunningProxy;
      beforeAll(async () => {
        pages = await new PageServer({ '/': 'page' }).start();
        upstream = await startHttpProxy();
      });
      afterAll(async () => {
        await upstream?.stop();
        await pages?.stop();
      });

      /** A plain-HTTP GET through the proxy at proxyServer, as Chromium would send it; its status, or the socket error's code. */
      const getVia = async (proxyServer: string, url: string): Promise<number | string> => {
        const { hostname, port } = new URL(proxyServer);
        const request = httpRequest({ host: hostname, port, path: url, agent: false });
        request.end();
        try {
          const [response] = (await once(request, 'response')) as [IncomingMessage];
          response.resume();
          return response.statusCode ?? 0;
        } catch (error) {
          return (error as NodeJS.ErrnoException).code ?? 'error';
        }
      };
      const proxy = (): ProxyUrl => parseProxyUrl(upstream.url)!;

      it('a proxied lease takes the spare: its requests go through the upstream, and the listener closes with the lease', async () => {
        const { fake, spare, spared } = await poolWithSpare();
        const { proxyServer } = fake.browsers[0].options[0];
        expect(proxyServer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        expect(spared.openEgressListeners).toBe(1);
        const url = `${pages.url}/?through-spare`;
        await spared.withContext(
          async (lease) => {
            expect(lease.context).toBe(spare);
            expect(await getVia(proxyServer!, url)).toBe(200);
          },
          { upstream: proxy() },
        );
        expect(upstream.seen).toContain(url);
        await waitFor(() => spare.closed === 1);
        expect(await getVia(proxyServer!, url)).toBe('ECONNREFUSED');
        // The lease asked for no context of its own: the only one requested is the next spare's, with a new listener.
        await waitFor(() => fake.browsers[0].requested.length >= 1);
        await flush();
        expect(fake.browsers[0].requested).toHaveLength(1);
        expect(fake.browsers[0].options[1].proxyServer).not.toBe(proxyServer);
        expect(spared.openEgressListeners).toBe(1);
      });

      it('a direct lease binds it straight out: the upstream an earlier lease used never sees its requests', async () => {
        const { fake, spared } = await poolWithSpare();
        await spared.withContext(async (lease) => lease.loaded(), { upstream: proxy() });
        await waitFor(() => fake.browsers[0].requested.length === 1);
        const [next] = fake.browsers[0].giveContexts();
        await flush();
        const { proxyServer } = fake.browsers[0].options[1];
        const seen = upstream.seen.length;
        const url = `${pages.url}/?direct`;
        await spared.withContext(async (lease) => {
          expect(lease.context).toBe(next);
          expect(await getVia(proxyServer!, url)).toBe(200);
        });
        expect(upstream.seen.length).toBe(seen);
        expect(pages.requests).toContain('/?direct');
      });

      it('a proxy the URL policy refuses costs no spare: the lease fails in words, the next lease takes the spare', async () => {
        const { fake, spare, spared } = await poolWithSpare(undefined, { allowPrivateNetworks: false });
        await expect(spared.withContext(async () => 'never', { upstream: proxy() })).rejects.toBeInstanceOf(ProxyFailure);
        expect(spare.closed).toBe(0);
        expect(fake.browsers[0].requested).toHaveLength(0);
        await spared.withContext(async (lease) => expect(lease.context).toBe(spare));
      });

      it('a spare nobody takes closes its listener with the pool', async () => {
        const { spared } = await poolWithSpare();
        expect(spared.openEgressListeners).toBe(1);
        await spared.close();
        expect(spared.openEgressListeners).toBe(0);
      });

      it('a proxied lease that finds no spare opens a listener of its own for its context, closed with it', async () => {
        const fake = fakeLauncher();
        const own = new BrowserPool(settings(), { launch: fake.launch });
        pool = own;
        const url = `${pages.url}/?own`;
        const running = own.withContext(
          async () => {
            expect(await getVia(fake.browsers[0].options[0].proxyServer!, url)).toBe(200);
          },
          { upstream: proxy() },
        );
        await waitFor(() => fake.browsers.length === 1 && fake.browsers[0].requested.length === 1);
        expect(own.openEgressListeners).toBe(1);
        fake.browsers[0].giveContexts();
        await running;
        expect(upstream.seen).toContain(url);
        await waitFor(() => own.openEgressListeners === 0);
      });
    });

    it("the next one opens once the lease's page has loaded (lease.loaded()), not while it loads", async () => {
      const { fake, spared } = await poolWithSpare();
      const loaded = deferred<void>();
      const finish = deferred<void>();
      const holding = spared.withContext(async (lease) => {
        await lease.openPage();
        await loaded.promise;
        lease.loaded();
        lease.loaded(); // twice: still one spare
        return finish.promise;
      });
      await flush();
      expect(fake.browsers[0].requested).toHaveLength(0);
      loaded.resolve();
      await waitFor(() => fake.browsers[0].requested.length === 1);
      finish.resolve();
      await holding;
      await flush();
      expect(fake.browsers[0].requested).toHaveLength(1);
    });

    it('the next one opens when a lease ends without saying its page loaded (it failed before)', async () => {
      const { fake, spared } = await poolWithSpare();
      await expect(spared.withContext(async () => Promise.reject(new Error('no page')))).rejects.toThrow('no page');
      await waitFor(() => fake.browsers[0].requested.length === 1);
    });

    it('is not used when its tab is gone: closed, and the lease opens its own context', async () => {
      const { fake, spare, spared } = await poolWithSpare(async () => fakePage(true));

      const running = spared.withContext(async (lease) => lease.context);
      await waitFor(() => fake.browsers[0].requested.length === 1);
      const [own] = fake.browsers[0].giveContexts();

      await expect(running).resolves.toBe(own);
      expect(spare.closed).toBe(1);
    });

    it('whose renderer died just before the lease (its crash reported late) is not used: the lease gets a fresh tab in the context', async () => {
      const dead = deadRendererPage();
      const tabs = [dead.page, fakePage()];
      const { spare, spared } = await poolWithSpare(async () => tabs.shift() ?? fakePage());

      const opened = spared.withContext(async (lease) => lease.openPage());
      // The lease asked the spare's renderer for an answer; Chromium reports the crash instead.
      await flush();
      dead.reportCrash();

      const page = await opened;
      expect(page).not.toBe(dead.page);
      expect(spare.pages).toEqual([dead.page, page]);
      expect(dead.closed()).toBe(true);
    });

    it('whose context never arrives marks the browser wedged, as a lease would: its late context is closed on arrival, leases move to a new browser', async () => {
      const { fake, spare, spared } = await poolWithSpare();
      // A lease takes the spare; the next spare's context then never arrives: after 10 s the browser is wedged.
      jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
      const finish = deferred<void>();
      const holding = spared.withContext((lease) => {
        lease.loaded(); // as a capture says once its page has loaded: the next spare opens
        return finish.promise;
      });
      await waitFor(() => fake.browsers[0].requested.length === 1);
      await jest.advanceTimersByTimeAsync(10_000);
      jest.useRealTimers();
      const [late] = fake.browsers[0].giveContexts();
      await flush();

      expect(late.closed).toBe(1);
      finish.resolve();
      await holding;
      // The lease that took the first spare ended as usual.
      expect(spare.closed).toBe(1);
      // The next lease goes to a new browser.
      const next = spared.withContext(async () => 'ok');
      await waitFor(() => fake.browsers.length === 2 && fake.browsers[1].requested.length >= 1);
      fake.browsers[1].giveContexts();
      await expect(next).resolves.toBe('ok');
    });
  });

  describe("the context's close", () => {
    it("is not waited for by the result: fn's answer comes back at once, and the permit is held until the close ends", async () => {
      const fake = fakeLauncher();
      const closing = new BrowserPool(settings({ concurrency: 1 }), { launch: fake.launch });
      pool = closing; // closed after the test
      const first = closing.withContext(async () => 'picture');
      await waitFor(() => fake.browsers[0]?.requested.length === 1);
      const [context] = fake.browsers[0].giveContexts();
      context.closing = deferred<void>();

      await expect(first).resolves.toBe('picture');
      expect(context.closed).toBe(1);
      expect(closing.stats().inFlight).toBe(1);
      // The only permit is still the closing lease's: the next one waits for the close.
      const next = jest.fn(async () => 'second');
      const second = closing.withContext(next);
      await flush();
      expect(next).not.toHaveBeenCalled();

      context.closing.resolve();
      await waitFor(() => fake.browsers[0].requested.length === 1);
      fake.browsers[0].giveContexts();
      await expect(second).resolves.toBe('second');
      await waitFor(() => closing.stats().inFlight === 0);
    });

    it('is waited for by a failure: it is handed back once the context is closed', async () => {
      const fake = fakeLauncher();
      pool = new BrowserPool(settings({ concurrency: 1 }), { launch: fake.launch });
      const failing = pool.withContext(async () => Promise.reject(new Error('page failed')));
      await waitFor(() => fake.browsers[0]?.requested.length === 1);
      const [context] = fake.browsers[0].giveContexts();
      context.closing = deferred<void>();

      expect(await outcomeWithin(failing, 100)).toEqual({ settled: false });
      context.closing.resolve();
      await expect(failing).rejects.toThrow('page failed');
    });
  });

  describe('drain (the application shutting down)', () => {
    it('lets a lease in flight finish, starts no new one, then closes the browsers', async () => {
      const fake = fakeLauncher();
      pool = new BrowserPool(settings(), { launch: fake.launch });
      const release = deferred<string>();
      const running = pool.withContext(() => release.promise);
      await waitFor(() => fake.browsers[0]?.requested.length === 1);
      const [context] = fake.browsers[0].giveContexts();

      const shuttingDown = pool.drain(5_000);
      const lateComer = jest.fn(async () => 'started during the drain');
      const arrivedDuringDrain = pool.withContext(lateComer);
      release.resolve('captured');

      await expect(running).resolves.toBe('captured');
      await shuttingDown;
      expect(context.closed).toBe(1);
      expect(pool.stats().browsers).toBe(0);
      expect(await outcomeWithin(arrivedDuringDrain, 200)).toEqual({ settled: false });
      expect(lateComer).not.toHaveBeenCalled();
    });

    it('a lease still running when the grace is over never settles: the job is not failed by our own shutdown', async () => {
      const fake = fakeLauncher();
      pool = new BrowserPool(settings({ concurrency: 1 }), { launch: fake.launch });
      let lease: ContextLease | null = null;
      const cutOff = pool.withContext(async (l) => {
        lease = l;
        return l.lost; // like a capture: fails as infrastructure when the browser goes
      });
      await waitFor(() => fake.browsers[0]?.requested.length === 1);
      fake.browsers[0].giveContexts();
      await waitFor(() => lease !== null);
      // Waits for the only permit: delivered, but not started.
      const waiting = jest.fn(async () => 'never runs');
      const queued = pool.withContext(waiting);

      const started = Date.now();
      await pool.drain(300);
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);

      expect(lease!.isLost()).toBe(true);
      expect(await outcomeWithin(cutOff, 300)).toEqual({ settled: false });
      expect(await outcomeWithin(queued, 50)).toEqual({ settled: false });
      expect(waiting).not.toHaveBeenCalled();
      expect(pool.stats().browsers).toBe(0);
    });

    it('close() on its own fails captures in flight as infrastructure ("Browser pool is shut down") before closing the browser', async () => {
      const fake = fakeLauncher();
      pool = new BrowserPool(settings(), { launch: fake.launch });
      const running = pool.withContext((l) => l.lost);
      running.catch(() => undefined);
      await waitFor(() => fake.browsers[0]?.requested.length === 1);
      fake.browsers[0].giveContexts();
      await flush();

      await pool.close();
      await expect(running).rejects.toEqual(new CaptureFailure('infrastructure', 'Browser pool is shut down'));
      await expect(pool.withContext(async () => 'x')).rejects.toEqual(new CaptureFailure('infrastructure', 'Browser pool is shut down'));
    });
  });
});

describe('PuppeteerPageCapturer.withPage with a browser that cannot open a tab', () => {
  it("gives up at openTimeoutMs (a scenario's time left) as an infrastructure failure, without running the scenario", async () => {
    const fake = fakeLauncher(() => new Promise<Page>(() => undefined));
    const capturer = new PuppeteerPageCapturer(
      { browsers: 1, concurrency: 1, chromePath: process.execPath, allowPrivateNetworks: true, prewarm: false },
      { launch: fake.launch },
    );
    try {
      const scenario = jest.fn(async () => 'ran');
      const started = Date.now();
      const opening = capturer.withPage({ viewportWidth: 800, viewportHeight: 600, openTimeoutMs: 300 }, scenario);
      await waitFor(() => fake.browsers[0]?.requested.length === 1);
      const [context] = fake.browsers[0].giveContexts();

      await expect(opening).rejects.toEqual(new CaptureFailure('infrastructure', 'Timed out opening a browser tab'));
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(scenario).not.toHaveBeenCalled();
      // The lease ended as usual: its context (and any tab that opens late in it) is closed.
      expect(context.closed).toBe(1);
      expect(capturer.stats()).toMatchObject({ inFlight: 0, waiting: 0 });
    } finally {
      await capturer.close();
    }
  });
});

async function waitFor(condition: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setImmediate(resolve));
  }
}
