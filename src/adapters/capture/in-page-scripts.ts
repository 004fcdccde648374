/**
 * Scripts evaluated inside the page. Kept as source strings rather than TypeScript functions because
 * (1) the project compiles without the DOM lib and (2) coverage instrumentation rewrites functions,
 * which then fail inside the browser where the coverage counters do not exist.
 * Arguments are embedded with JSON.stringify, which always yields a valid JavaScript literal.
 */

const DOCUMENT_HEIGHT = `Math.max(
  document.documentElement ? document.documentElement.scrollHeight : 0,
  document.body ? document.body.scrollHeight : 0)`;

export const documentHeightScript = `(${DOCUMENT_HEIGHT})`;

/** The capture report's facts from the page itself: its title and its full height (CSS px). */
export const pageFactsScript = `({ title: document.title, height: ${DOCUMENT_HEIGHT} })`;

export const readyStateCompleteScript = `document.readyState === 'complete'`;

/**
 * Evaluates to the selectors that are not valid CSS. Checked up front because puppeteer's waits treat
 * an invalid selector as one that has not matched yet, and so wait out the whole timeout.
 */
export function invalidSelectorsScript(selectors: readonly string[]): string {
  return `(() => {
    const probe = document.createDocumentFragment();
    return ${JSON.stringify(selectors)}.filter((selector) => {
      try {
        probe.querySelector(selector);
        return false;
      } catch (error) {
        return true;
      }
    });
  })()`;
}

/**
 * Hides matching elements with one constructed stylesheet: unlike an injected <style> tag it is not
 * blocked by a page's Content-Security-Policy, and it also hides matching elements added later.
 * insertRule takes exactly one rule, so a "selector" cannot smuggle in other CSS.
 * Evaluates to the selectors that are not valid CSS.
 */
export function hideSelectorsScript(selectors: readonly string[]): string {
  return `(() => {
    const sheet = new CSSStyleSheet();
    const invalid = [];
    for (const selector of ${JSON.stringify(selectors)}) {
      try {
        sheet.insertRule(selector + ' { visibility: hidden !important; }', sheet.cssRules.length);
      } catch (error) {
        invalid.push(selector);
      }
    }
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    return invalid;
  })()`;
}

/**
 * Scrolls down a viewport at a time to the capture limit, then back to where it was, so that
 * lazy-loaded images (loading=lazy, IntersectionObserver) start loading. A single jump to the bottom
 * would skip the middle of the page. Bounded by budgetMs. Evaluates to whether it scrolled at all.
 */
export function revealLazyContentScript(maxHeight: number, budgetMs: number): string {
  return `(async () => {
    const until = Date.now() + ${JSON.stringify(budgetMs)};
    const limit = Math.min(${JSON.stringify(maxHeight)}, ${DOCUMENT_HEIGHT});
    const step = Math.max(200, window.innerHeight);
    const startX = window.scrollX;
    const startY = window.scrollY;
    // requestAnimationFrame lets the page react to the scroll; the timer covers pages where frames stall.
    const frame = () => new Promise((resolve) => {
      const timer = setTimeout(resolve, 50);
      requestAnimationFrame(() => { clearTimeout(timer); resolve(); });
    });
    let scrolled = false;
    for (let y = step; y < limit && Date.now() < until; y += step) {
      window.scrollTo({ left: startX, top: y, behavior: 'instant' });
      scrolled = true;
      await frame();
    }
    window.scrollTo({ left: startX, top: startY, behavior: 'instant' });
    await frame();
    return scrolled;
  })()`;
}

export const scrollToBottomScript = `(() => {
  window.scrollTo({ left: window.scrollX, top: ${DOCUMENT_HEIGHT}, behavior: 'instant' });
})()`;

/**
 * Runs before any page script in every frame: removes the service-worker API. A worker would keep
 * intercepting and issuing requests after the page is gone and is not needed to render anything; its
 * traffic would still pass the egress proxy, but nothing that cannot be watched should run at all.
 * Deleting from the prototype (rather than shadowing on the instance) leaves no getter to recover,
 * and a frame's fresh about:blank child gets the same treatment.
 */
export const disableServiceWorkersScript = `(() => {
  try { delete Navigator.prototype.serviceWorker; } catch (error) {}
  try { if (typeof ServiceWorkerContainer === 'function') delete ServiceWorkerContainer.prototype.register; } catch (error) {}
})()`;

/**
 * Runs before any page script (evaluateOnNewDocument): records what the stability wait cannot see from
 * outside the page — short timers still pending, the time of the last DOM mutation or timer callback.
 * Network requests are counted in Node from puppeteer's events instead, which also see images, fonts and
 * subframes. Timers longer than shortTimerMs and intervals are not tracked: a clock ticking every second
 * or a banner shown after 30 s must not hold the capture. A page that tampers with the tracker only
 * changes when its own capture is taken; the wait is capped in Node whatever the page reports.
 */
export function stabilityTrackerScript(shortTimerMs: number): string {
  return `(() => {
    if (window.__screenshotStability) return;
    const pending = new Set();
    const state = { pending, lastActivity: performance.now() };
    Object.defineProperty(window, '__screenshotStability', { value: state });
    const touch = () => { state.lastActivity = performance.now(); };
    const realSetTimeout = window.setTimeout;
    const realClearTimeout = window.clearTimeout;
    window.setTimeout = function (callback, delay, ...args) {
      if (typeof callback !== 'function' || !(Number(delay) <= ${JSON.stringify(shortTimerMs)})) {
        return realSetTimeout.call(this, callback, delay, ...args);
      }
      let id;
      const wrapped = function () {
        pending.delete(id);
        touch();
        return callback.apply(this, arguments);
      };
      id = realSetTimeout.call(this, wrapped, delay, ...args);
      pending.add(id);
      return id;
    };
    window.clearTimeout = function (id) {
      pending.delete(id);
      return realClearTimeout.call(this, id);
    };
    new MutationObserver(touch).observe(document, {
      subtree: true, childList: true, attributes: true, characterData: true,
    });
  })()`;
}

/**
 * Evaluates to the page's side of stability: {busy, quietMs}. Busy while a tracked timer is pending,
 * web fonts are loading, a loaded image is still being decoded or a finite animation (a fade-in, not an
 * endless spinner) ends within shortTimerMs. quietMs: time since the last mutation, timer callback or
 * decode. Images still downloading are the network's part; lazy images off-screen never start and so
 * do not count. Without the tracker (not installed in this document) only the checks here apply.
 */
export function stabilityProbeScript(shortTimerMs: number): string {
  return `(() => {
    const now = performance.now();
    const state = window.__screenshotStability || { pending: new Set(), lastActivity: -Infinity };
    const decoding = state.decoding || (state.decoding = { count: 0, seen: new WeakSet() });
    for (const img of Array.from(document.images)) {
      if (!img.complete || img.naturalWidth === 0 || decoding.seen.has(img)) continue;
      decoding.seen.add(img);
      decoding.count += 1;
      img.decode().catch(() => undefined).then(() => {
        decoding.count -= 1;
        state.lastActivity = performance.now();
      });
    }
    let animating = false;
    try {
      animating = document.getAnimations().some((animation) => {
        if (animation.playState !== 'running' || !animation.effect) return false;
        const timing = animation.effect.getComputedTiming();
        const left = timing.endTime - (timing.localTime || 0);
        return Number.isFinite(left) && left > 0 && left <= ${JSON.stringify(shortTimerMs)};
      });
    } catch (error) {}
    const busy = state.pending.size > 0 || document.fonts.status === 'loading' || decoding.count > 0 || animating;
    return { busy, quietMs: Math.max(0, now - state.lastActivity) };
  })()`;
}

/**
 * Adds a constructed style sheet to the document (the `css` option). Constructed sheets are not subject to the
 * page's Content-Security-Policy for inline styles, where an added <style> element would be.
 */
export function addStyleSheetScript(css: string): string {
  return `(() => {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(${JSON.stringify(css)});
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  })()`;
}

/** Where a capture's image starts, for boxesScript: the viewport, the document, a clip, or an element's box. */
export type ImageOrigin = { kind: 'viewport' } | { kind: 'document' } | { kind: 'clip'; x: number; y: number } | { kind: 'element'; selector: string };

/**
 * Evaluates to the boxes ([x, y, width, height], in the image's pixels: CSS px × devicePixelRatio) of every
 * visible element matching the selectors (change history's ignored regions). Invalid selectors match nothing
 * (they were validated when saved). Measured right before the image is taken, so they are where the image has them.
 */
export function boxesScript(selectors: readonly string[], origin: ImageOrigin): string {
  return `(() => {
    const origin = ${JSON.stringify(origin)};
    let ox = 0, oy = 0;
    if (origin.kind === 'document') { ox = -window.scrollX; oy = -window.scrollY; }
    if (origin.kind === 'clip') { ox = origin.x - window.scrollX; oy = origin.y - window.scrollY; }
    if (origin.kind === 'element') {
      const element = document.querySelector(origin.selector);
      if (element) { const r = element.getBoundingClientRect(); ox = r.left; oy = r.top; }
    }
    const scale = window.devicePixelRatio || 1;
    const boxes = [];
    for (const selector of ${JSON.stringify(selectors)}) {
      let found = [];
      try { found = document.querySelectorAll(selector); } catch (error) { continue; }
      for (const element of found) {
        for (const r of element.getClientRects()) {
          if (r.width > 0 && r.height > 0) boxes.push([(r.left - ox) * scale, (r.top - oy) * scale, r.width * scale, r.height * scale]);
        }
      }
    }
    return boxes;
  })()`;
}
