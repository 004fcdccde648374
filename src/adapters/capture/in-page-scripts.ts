/**
 * Scripts evaluated inside the page. Kept as source strings rather than TypeScript functions because
 * (1) the project compiles without the DOM lib and (2) coverage instrumentation rewrites functions,
 * which then fail inside the browser where the coverage counters do not exist.
 * Arguments are embedded with JSON.stringify, which always yields a valid JavaScript literal.
 */

const DOCUMENT_HEIGHT = `Math.max(
  document.documentElement ? document.documentElement.scrollHeight : 0,
  document.body ? document.body.scrollHeight : 0)`;

/** A frame for the capture's own scripts: past the stability tracker's wrapper when it is installed. */
const CAPTURE_FRAME = `((window.__screenshotStability && window.__screenshotStability.frame) || window.requestAnimationFrame)`;

/** The most elements the reveal follows for content revealed on scroll (each is looked at while in view). */
const REVEAL_WATCHED_MAX = 3_000;

/**
 * `(element) => number`: how visible an element is, 0..1 — its opacity times its ancestors', 0 when it or an
 * ancestor is hidden or not rendered.
 */
const SHOWN_OPACITY = `(element) => {
  if (!element.isConnected || element.getClientRects().length === 0) return 0;
  if (getComputedStyle(element).visibility === 'hidden') return 0;
  let opacity = 1;
  for (let e = element, depth = 0; e && e.nodeType === 1 && depth < 30; e = e.parentElement, depth++) {
    opacity *= Number(getComputedStyle(e).opacity);
    if (opacity < 0.05) return 0;
  }
  return opacity;
}`;

/** Frames asked for within this long of the last one continue the same requestAnimationFrame chain. */
const RAF_CHAIN_GAP_MS = 100;
/**
 * A chain older than this is taken for an endless loop. Charts' entry animations last 1 s by default (chart.js,
 * ECharts, Highcharts; ApexCharts 0.8 s); every endless loop costs a capture up to this long.
 */
export const RAF_CHAIN_MAX_MS = 1_500;

/** height, width: the document's height and the layout viewport's width (980 on a phone without a viewport meta). */
const LAYOUT_FIELDS = `height: ${DOCUMENT_HEIGHT}, width: document.documentElement ? document.documentElement.clientWidth : 0`;

/** Containers of the common consent platforms (Cookiebot, OneTrust, Usercentrics, Didomi, Quantcast, Funding Choices, TrustArc, consentmanager, Cookie Consent, CookieYes, iubenda…). */
const CONSENT_CONTAINERS = [
  '#CybotCookiebotDialog',
  '#CybotCookiebotDialogBodyUnderlay',
  '#onetrust-consent-sdk',
  '#usercentrics-root',
  '#didomi-host',
  '.qc-cmp2-container',
  '.fc-consent-root',
  '#truste-consent-track',
  '.truste_overlay',
  '#cmpbox',
  '#cmpbox2',
  '.cc-window',
  '#cookie-law-info-bar',
  '.cky-consent-container',
  '.cky-overlay',
  '#iubenda-cs-banner',
];

/** Whether a known consent platform's dialog is on screen (the warning consent_unanswered). */
const CONSENT_VISIBLE = `Array.from(document.querySelectorAll(${JSON.stringify(CONSENT_CONTAINERS.join(','))})).some((element) => {
  const r = element.getBoundingClientRect();
  const style = getComputedStyle(element);
  return r.width > 0 && r.height > 0 && style.visibility !== 'hidden' && style.display !== 'none' && Number(style.opacity) > 0;
})`;

/**
 * Whether an endless animation is running (the warning animation_running): a requestAnimationFrame chain older than
 * RAF_CHAIN_MAX_MS whose frames have been changing the DOM or drawing on a canvas for longer than that too (the
 * tracker's run of changing frames, which no longer holds the capture), or an infinite CSS or Web animation.
 */
const LOOPING = `(() => {
  const state = window.__screenshotStability;
  const raf = state && state.raf;
  const now = performance.now();
  if (raf && raf.pending.size > 0 && now - raf.loopChangedAt < 500 && raf.loopChangedAt - raf.runStart > ${RAF_CHAIN_MAX_MS}) return true;
  try {
    return document.getAnimations().some((a) => a.playState === 'running' && a.effect && a.effect.getComputedTiming().iterations === Infinity);
  } catch (error) {
    return false;
  }
})()`;

/** {height, width}: the page's layout (LAYOUT_FIELDS), for a full-page picture whose caller has not read it. */
export const fullPageLayoutScript = `({ ${LAYOUT_FIELDS} })`;

/**
 * The capture report's facts from the page itself: its title, its full height (CSS px) and its layout width; the
 * last two are also the layout its full-page picture is sized by.
 */
export const pageFactsScript = `({ title: document.title, ${LAYOUT_FIELDS}, looping: ${LOOPING}, consent: ${CONSENT_VISIBLE} })`;

/** The capture report's one evaluation: the page's facts, and its visible text when `textScript` is given. */
export function reportScript(textScript: string | null): string {
  return textScript ? `({ facts: ${pageFactsScript}, text: ${textScript} })` : `({ facts: ${pageFactsScript} })`;
}

export const readyStateCompleteScript = `document.readyState === 'complete'`;

/**
 * Hides matching elements with one constructed stylesheet: unlike an injected <style> tag it is not
 * blocked by a page's Content-Security-Policy, and it also hides matching elements added later.
 * insertRule takes exactly one rule, so a "selector" cannot smuggle in other CSS.
 * Evaluates to the selectors that are not valid CSS. `declaration`: visibility (hide_selectors: the space stays)
 * or display (remove_selectors: the space is freed).
 */
export function hideSelectorsScript(selectors: readonly string[], declaration = 'visibility: hidden !important;'): string {
  return `(() => {
    const sheet = new CSSStyleSheet();
    const invalid = [];
    for (const selector of ${JSON.stringify(selectors)}) {
      try {
        sheet.insertRule(selector + ' { ${declaration} }', sheet.cssRules.length);
      } catch (error) {
        invalid.push(selector);
      }
    }
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    return invalid;
  })()`;
}

/**
 * Where the page is and how far the reveal may walk: {height, step, x, y}, CSS px. Also starts watching which
 * elements change (class, style) while the page is walked: content revealed on scroll (AOS, GSAP ScrollTrigger, an
 * IntersectionObserver toggling a class). Those seen shown during the walk and hidden again at the end
 * (fullPageModeScript) are why a full page is then taken viewport by viewport (stitched-page.ts).
 */
export const revealStartScript = `(() => {
  const state = window.__screenshotReveal || (window.__screenshotReveal = { waited: new WeakSet() });
  if (!state.changed) {
    state.changed = new Map();
    state.shown = new Set();
    new MutationObserver((records) => {
      for (const record of records) {
        if (state.changed.size >= ${REVEAL_WATCHED_MAX} && !state.changed.has(record.target)) continue;
        if (record.target.nodeType === 1) state.changed.set(record.target, performance.now());
      }
    }).observe(document, { subtree: true, attributes: true, attributeFilter: ['class', 'style'] });
  }
  return {
    height: ${DOCUMENT_HEIGHT},
    step: Math.max(200, window.innerHeight),
    x: window.scrollX,
    y: window.scrollY,
  };
})()`;

/**
 * One step of the full-page reveal (see lazy-reveal.ts). With a position: scrolls there and lets two frames
 * pass — IntersectionObserver callbacks run after the frame that moved the target into view, and the lazy
 * library then sets the image's src. Then, or without a position, evaluates to what is still going on in the
 * viewport: {loading, unswapped, height}. loading: visible images still downloading, or loaded during the walk
 * and not yet decoded (decoding is awaited here, at most decodeWaitMs). unswapped: visible elements whose
 * data-src / data-srcset a lazy library has not copied yet (lazysizes reacts up to 125 ms after a scroll).
 * A library that cancels an image leaving the viewport (vanilla-lazyload's cancel_on_exit) never sees it leave
 * before it is complete, since the walk waits here.
 */
export function revealStepScript(top: number | null, decodeWaitMs: number): string {
  return `(async () => {
    const top = ${JSON.stringify(top)};
    const frame = () => new Promise((resolve) => {
      const timer = setTimeout(resolve, 50);
      ${CAPTURE_FRAME}(() => { clearTimeout(timer); resolve(); });
    });
    if (top !== null) {
      window.scrollTo({ left: window.scrollX, top, behavior: 'instant' });
      await frame();
      await frame();
    }
    const state = window.__screenshotReveal || (window.__screenshotReveal = { waited: new WeakSet() });
    const vh = window.innerHeight, vw = window.innerWidth;
    const inView = (element) => {
      if (element.getClientRects().length === 0) return false;
      const r = element.getBoundingClientRect();
      return r.bottom >= 0 && r.top <= vh && r.right >= 0 && r.left <= vw;
    };
    let loading = 0;
    const decodes = [];
    for (const img of Array.from(document.images)) {
      if (!inView(img)) continue;
      if (!img.complete) {
        state.waited.add(img);
        loading += 1;
      } else if (state.waited.has(img)) {
        state.waited.delete(img);
        if (img.naturalWidth > 0) decodes.push(img.decode().catch(() => undefined));
      }
    }
    if (decodes.length > 0) {
      await Promise.race([Promise.all(decodes), new Promise((resolve) => setTimeout(resolve, ${JSON.stringify(decodeWaitMs)}))]);
    }
    let unswapped = 0;
    for (const element of Array.from(document.querySelectorAll('img[data-src], iframe[data-src], img[data-srcset], source[data-srcset]'))) {
      const target = element.tagName === 'SOURCE' ? element.parentElement : element;
      if (!target || !inView(target)) continue;
      const dataSrc = element.getAttribute('data-src');
      if (dataSrc && element.src !== new URL(dataSrc, document.baseURI).href) unswapped += 1;
      else if (!dataSrc && element.getAttribute('data-srcset') && !element.getAttribute('srcset')) unswapped += 1;
    }
    // Content revealed on scroll: elements in view that changed during the walk and are still fading in (a
    // transition, an animation, or changed within the last frames: a GSAP tween) hold the step; those fully shown
    // are remembered, to see whether the page hides them again when scrolled away.
    let animating = 0;
    if (state.changed) {
      const now = performance.now();
      const opacityOf = ${SHOWN_OPACITY};
      for (const [element, changedAt] of state.changed) {
        if (!inView(element)) continue;
        const opacity = opacityOf(element);
        if (opacity >= 0.99) {
          state.shown.add(element);
          continue;
        }
        let moving = now - changedAt < 120;
        if (!moving) {
          try {
            moving = element.getAnimations().some((a) => a.playState === 'running');
          } catch (error) {}
        }
        if (moving) animating += 1;
        else if (opacity >= 0.5) state.shown.add(element);
      }
    }
    return { loading, unswapped, animating, height: ${DOCUMENT_HEIGHT} };
  })()`;
}

/**
 * Before a full-page picture, after the reveal: {rehidden, framesBelow}. rehidden: elements the walk saw shown that
 * are hidden again now (content revealed on scroll that hides when scrolled away: AOS on its defaults, GSAP
 * ScrollTrigger reversing, an IntersectionObserver toggle). framesBelow: frames below the first screen, which
 * Chromium paints in a picture beyond the viewport only when they were in view. Either makes the full page be
 * taken viewport by viewport, each part while it is in view.
 */
export const fullPageModeScript = `(() => {
  const state = window.__screenshotReveal;
  const opacityOf = ${SHOWN_OPACITY};
  let rehidden = 0;
  if (state && state.shown) for (const element of state.shown) if (opacityOf(element) < 0.5) rehidden += 1;
  let framesBelow = 0;
  for (const frame of Array.from(document.querySelectorAll('iframe, frame'))) {
    const r = frame.getBoundingClientRect();
    if (r.width >= 20 && r.height >= 20 && r.top + window.scrollY >= window.innerHeight && opacityOf(frame) > 0) framesBelow += 1;
  }
  return { rehidden, framesBelow };
})()`;

/**
 * One part of a stitched full page: scrolls so the part starting at `top` (CSS px) is in view (the browser may stop
 * short at the page's end) and evaluates to where it is: {y}. `hideFixed`: fixed and stuck sticky elements are
 * hidden from then on (a header or a chat button would repeat in every part); `restore` shows them again.
 */
export function stitchScrollScript(top: number, hideFixed: boolean): string {
  return `(async () => {
    if (${JSON.stringify(hideFixed)} && !window.__screenshotFixedHidden) {
      const hidden = [];
      for (const element of Array.from(document.body ? document.body.querySelectorAll('*') : [])) {
        const style = getComputedStyle(element);
        if (style.position !== 'fixed' && style.position !== 'sticky') continue;
        if (style.position === 'sticky') {
          const r = element.getBoundingClientRect();
          if (r.top > window.innerHeight / 4 || r.bottom < 0) continue;
        }
        hidden.push([element, element.style.getPropertyValue('visibility'), element.style.getPropertyPriority('visibility')]);
        element.style.setProperty('visibility', 'hidden', 'important');
      }
      window.__screenshotFixedHidden = hidden;
    }
    window.scrollTo({ left: 0, top: ${JSON.stringify(top)}, behavior: 'instant' });
    return { y: window.scrollY };
  })()`;
}

/** After a stitched full page: the hidden fixed elements shown again, and the page back at its top. */
export const stitchEndScript = `(() => {
  for (const [element, value, priority] of window.__screenshotFixedHidden || []) {
    if (value) element.style.setProperty('visibility', value, priority);
    else element.style.removeProperty('visibility');
  }
  window.__screenshotFixedHidden = null;
  window.scrollTo({ left: 0, top: 0, behavior: 'instant' });
})()`;

/**
 * App shells: the document does not scroll (html, body at 100 % with overflow hidden) and an element holds the
 * page's content in a scroll area of its own. Finds it (the largest visible element whose content overflows and that
 * scrolls, covering a fair part of the viewport) or takes `selector` (full_page_scroll_selector), then unfolds it:
 * the element and its ancestors lose their fixed heights and overflow, so the document holds the whole content and
 * the full page is taken as for any page. Evaluates to null (no such element, or the document itself scrolls) or
 * {selector, whole, height}: a short name of the element, whether it no longer scrolls, the document's new height.
 */
export function unfoldScrollContainerScript(selector: string | null): string {
  return `(() => {
    const root = document.scrollingElement || document.documentElement;
    const selector = ${JSON.stringify(selector)};
    let container = null;
    if (selector) {
      container = document.querySelector(selector);
      if (!container) return null;
    } else {
      if (root.scrollHeight > window.innerHeight + 2) return null;
      const area = window.innerWidth * window.innerHeight;
      let best = 0;
      const all = document.body ? document.body.getElementsByTagName('*') : [];
      for (let i = 0; i < all.length && i < 20000; i++) {
        const element = all[i];
        if (element.clientHeight < 100 || element.scrollHeight <= element.clientHeight + 20) continue;
        const overflow = getComputedStyle(element).overflowY;
        if (overflow !== 'auto' && overflow !== 'scroll' && overflow !== 'overlay') continue;
        const r = element.getBoundingClientRect();
        const visibleArea = Math.max(0, Math.min(r.right, window.innerWidth) - Math.max(r.left, 0)) * Math.max(0, Math.min(r.bottom, window.innerHeight) - Math.max(r.top, 0));
        if (visibleArea >= 0.3 * area && visibleArea > best) {
          best = visibleArea;
          container = element;
        }
      }
      if (!container) return null;
    }
    const name = container.tagName.toLowerCase() + (container.id ? '#' + container.id : typeof container.className === 'string' && container.className.trim() ? '.' + container.className.trim().split(/\\s+/)[0] : '');
    const unfold = (element) => {
      const style = getComputedStyle(element);
      element.style.setProperty('height', 'auto', 'important');
      element.style.setProperty('max-height', 'none', 'important');
      element.style.setProperty('overflow', 'visible', 'important');
      if (style.position === 'fixed') element.style.setProperty('position', 'absolute', 'important');
    };
    container.scrollTop = 0;
    unfold(container);
    container.style.setProperty('flex', 'none', 'important');
    for (let e = container.parentElement; e; e = e.parentElement) unfold(e);
    return { selector: name, whole: container.scrollHeight <= container.clientHeight + 2, height: ${DOCUMENT_HEIGHT} };
  })()`;
}

/**
 * Back to where the page was before the reveal, then one frame. What the walk set moving (tweens one after the other
 * as it went down) is no endless animation: the run of changing frames starts again from here, so what the way back
 * sets moving (tweens reversing) is waited for.
 */
export function revealEndScript(x: number, y: number): string {
  return `(async () => {
    const stability = window.__screenshotStability;
    if (stability && stability.raf) {
      stability.raf.runStart = -Infinity;
      stability.raf.loopChangedAt = -Infinity;
    }
    window.scrollTo({ left: ${JSON.stringify(x)}, top: ${JSON.stringify(y)}, behavior: 'instant' });
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, 50);
      ${CAPTURE_FRAME}(() => { clearTimeout(timer); resolve(); });
    });
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
 * `(state, img) => void`: starts decoding a loaded image once, counted in `state.decoding` while it runs, its end
 * counted as activity. The tracker calls it at each image's load, the probe for each image it finds complete.
 */
const DECODE_IMAGE = `(state, img) => {
  const decoding = state.decoding || (state.decoding = { count: 0, seen: new WeakSet() });
  if (img.naturalWidth === 0 || decoding.seen.has(img)) return;
  decoding.seen.add(img);
  decoding.count += 1;
  img.decode().catch(() => undefined).then(() => {
    decoding.count -= 1;
    state.lastActivity = performance.now();
  });
}`;

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
    let observer = null;
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
    // requestAnimationFrame chains: a chain (each frame asking for the next, or frames asked for within
    // RAF_CHAIN_GAP_MS of each other) holds the capture while it is younger than RAF_CHAIN_MAX_MS — a chart's entry
    // animation drawn on a canvas, which no mutation shows — and is taken for an endless loop (a spinner, a game)
    // after that: its frames then hold the capture only while they start changing something (below).
    const raf = { pending: new Set(), chainStart: -Infinity, lastRun: -Infinity, runStart: -Infinity, loopChangedAt: -Infinity, drew: false };
    state.raf = raf;
    let inLoop = false;
    // A canvas drawn by an endless loop (three.js, a game) changes no DOM: its draw calls say it is animating.
    for (const name of ['CanvasRenderingContext2D', 'WebGLRenderingContext', 'WebGL2RenderingContext']) {
      const proto = window[name] && window[name].prototype;
      if (!proto) continue;
      for (const method of ['drawImage', 'fillRect', 'fill', 'stroke', 'putImageData', 'fillText', 'drawArrays', 'drawElements']) {
        const real = proto[method];
        if (typeof real !== 'function') continue;
        proto[method] = function () {
          if (inLoop) raf.drew = true;
          return real.apply(this, arguments);
        };
      }
    }
    const realRequestAnimationFrame = window.requestAnimationFrame;
    const realCancelAnimationFrame = window.cancelAnimationFrame;
    // The capture's own frames (the reveal's) go past the wrapper.
    state.frame = (callback) => realRequestAnimationFrame.call(window, callback);
    window.requestAnimationFrame = function (callback) {
      if (typeof callback !== 'function') return realRequestAnimationFrame.call(this, callback);
      const now = performance.now();
      if (raf.pending.size === 0 && now - raf.lastRun > ${JSON.stringify(RAF_CHAIN_GAP_MS)}) raf.chainStart = now;
      let id;
      const wrapped = function () {
        raf.pending.delete(id);
        raf.lastRun = performance.now();
        const young = raf.lastRun - raf.chainStart <= ${JSON.stringify(RAF_CHAIN_MAX_MS)};
        if (young) touch();
        // What the frames change (the DOM, a canvas) is followed as a run of changing frames. Past a young chain, a run
        // younger than RAF_CHAIN_MAX_MS is a tween (a GSAP ticker idle between tweens: activity, waited for); an older
        // one is an endless animation playing (lottie, a canvas game), not the page arriving, so its mutations are
        // taken here before the observer sees them.
        inLoop = true;
        try {
          return callback.apply(this, arguments);
        } finally {
          inLoop = false;
          const changed = (observer !== null && observer.takeRecords().length > 0) || raf.drew;
          raf.drew = false;
          if (changed) {
            const now = performance.now();
            if (now - raf.loopChangedAt > ${JSON.stringify(RAF_CHAIN_GAP_MS)}) raf.runStart = now;
            raf.loopChangedAt = now;
            if (young || now - raf.runStart <= ${JSON.stringify(RAF_CHAIN_MAX_MS)}) touch();
          }
        }
      };
      id = realRequestAnimationFrame.call(this, wrapped);
      raf.pending.add(id);
      return id;
    };
    window.cancelAnimationFrame = function (id) {
      raf.pending.delete(id);
      return realCancelAnimationFrame.call(this, id);
    };
    observer = new MutationObserver(touch);
    observer.observe(document, {
      subtree: true, childList: true, attributes: true, characterData: true,
    });
    // Each image is decoded as soon as it has loaded (the probe does the same for images it finds complete): the
    // wait asks the page only once the network is quiet, and a decode started then would hold the capture longer.
    // Capture phase on window: an image's load event does not bubble, and no page handler runs before this one.
    const decode = ${DECODE_IMAGE};
    window.addEventListener('load', (event) => {
      if (event.target instanceof HTMLImageElement) decode(state, event.target);
    }, true);
  })()`;
}

/**
 * Evaluates to the page's side of stability: {busy, quietMs}. Busy while a tracked timer is pending,
 * web fonts are loading, a loaded image is still being decoded, a finite animation (a fade-in, not an
 * endless spinner) ends within shortTimerMs, or a requestAnimationFrame chain younger than RAF_CHAIN_MAX_MS runs. quietMs: time since the last mutation, timer callback or
 * decode. Images still downloading are the network's part; lazy images off-screen never start and so
 * do not count. Without the tracker (not installed in this document) only the checks here apply.
 *
 * `readWhenQuiet`: when the page answers not busy and quiet for at least `quietMs`, the answer also carries `read`,
 * the value of `script` evaluated in the same task — what the capture reads next (its report) when nothing is to
 * happen between the settle wait and the picture, so that costs no round trip of its own (PageStability).
 */
export function stabilityProbeScript(shortTimerMs: number, readWhenQuiet?: { quietMs: number; script: string }): string {
  return `(() => {
    const now = performance.now();
    const state = window.__screenshotStability || { pending: new Set(), lastActivity: -Infinity };
    const decode = ${DECODE_IMAGE};
    for (const img of Array.from(document.images)) if (img.complete) decode(state, img);
    const decoding = state.decoding || { count: 0 };
    let animating = false;
    try {
      animating = document.getAnimations().some((animation) => {
        if (animation.playState !== 'running' || !animation.effect) return false;
        const timing = animation.effect.getComputedTiming();
        const left = timing.endTime - (timing.localTime || 0);
        return Number.isFinite(left) && left > 0 && left <= ${JSON.stringify(shortTimerMs)};
      });
    } catch (error) {}
    const raf = state.raf;
    const framing = Boolean(raf) && raf.pending.size > 0 && now - raf.chainStart <= ${JSON.stringify(RAF_CHAIN_MAX_MS)};
    const busy = state.pending.size > 0 || document.fonts.status === 'loading' || decoding.count > 0 || animating || framing;
    const quietMs = Math.max(0, now - state.lastActivity);
    ${readWhenQuiet ? `if (!busy && quietMs >= ${JSON.stringify(readWhenQuiet.quietMs)}) return { busy, quietMs, read: ${readWhenQuiet.script} };` : ''}
    return { busy, quietMs };
  })()`;
}

/**
 * After a consent dialog was answered: hides what is still on screen of it — the known platforms' containers,
 * then any fixed or sticky box that speaks of cookies or consent, then the empty fixed boxes covering most of
 * the viewport (the dialog's backdrop) — and gives back the scrolling a modal dialog took from the page.
 * Evaluates to how many elements it hid (0 when the answer closed the dialog).
 */
export const hideConsentLeftoversScript = `(() => {
  const visible = (element) => {
    const style = getComputedStyle(element);
    if (style.display === 'none' || style.visibility === 'hidden' || Number(style.opacity) === 0) return false;
    const r = element.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const hide = (element) => element.style.setProperty('display', 'none', 'important');
  // Not "privacy": a sticky header's Privacy link must stay.
  const words = /cookie|consent|gdpr|rgpd|einwilligung/i;
  const controls = 'button, [role="button"], a[href], input[type="button"], input[type="submit"]';
  const hidden = [];
  for (const element of Array.from(document.querySelectorAll(${JSON.stringify(CONSENT_CONTAINERS.join(','))}))) {
    if (visible(element)) hidden.push(element);
  }
  const fixed = Array.from(document.body ? document.body.querySelectorAll('*') : []).filter((element) => {
    const position = getComputedStyle(element).position;
    return (position === 'fixed' || position === 'sticky') && visible(element) && !hidden.some((h) => h.contains(element));
  });
  for (const element of fixed) {
    const text = element.textContent || '';
    if (text.length < 3000 && words.test(text) && element.querySelector(controls)) hidden.push(element);
  }
  if (hidden.length > 0) {
    const area = window.innerWidth * window.innerHeight;
    for (const element of fixed) {
      const r = element.getBoundingClientRect();
      if (!hidden.includes(element) && !(element.textContent || '').trim() && r.width * r.height >= 0.8 * area) hidden.push(element);
    }
    for (const root of [document.documentElement, document.body]) {
      if (root && getComputedStyle(root).overflowY === 'hidden') root.style.setProperty('overflow', 'visible', 'important');
    }
  }
  hidden.forEach(hide);
  return hidden.length;
})()`;

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

/**
 * Text changes: the most characters of visible text read from a page (the service keeps at most 1 MiB of UTF-8 of
 * it, screenshots/domain/text-change.ts); cut in the page, so a huge page never crosses the protocol whole.
 */
export const VISIBLE_TEXT_MAX_CHARS = 1024 * 1024;

/**
 * Evaluates to the page's visible text (innerText: what is rendered, hidden and `visibility: hidden` text left out,
 * one line per rendered line) of the element matching `elementSelector`, else of the body, without the elements of
 * `ignoreSelectors` (change_ignore_selectors). Those are taken out with `display: none` through the CSSOM (which a
 * page's Content-Security-Policy does not forbid, unlike a <style> element) and put back as they were; it runs after
 * the picture when there are such elements (capture-run.ts), so the picture never sees it.
 */
export function visibleTextScript(ignoreSelectors: readonly string[], elementSelector: string | null): string {
  return `(() => {
    const hidden = [];
    for (const selector of ${JSON.stringify(ignoreSelectors)}) {
      let found = [];
      try { found = document.querySelectorAll(selector); } catch (error) { continue; }
      for (const element of found) {
        if (!element.style) continue;
        hidden.push([element, element.style.getPropertyValue('display'), element.style.getPropertyPriority('display')]);
        element.style.setProperty('display', 'none', 'important');
      }
    }
    try {
      const root = ${elementSelector === null ? 'null' : `document.querySelector(${JSON.stringify(elementSelector)})`} || document.body || document.documentElement;
      const text = root ? (typeof root.innerText === 'string' ? root.innerText : root.textContent || '') : '';
      return text.slice(0, ${VISIBLE_TEXT_MAX_CHARS});
    } finally {
      for (const [element, value, priority] of hidden) {
        if (value) element.style.setProperty('display', value, priority);
        else element.style.removeProperty('display');
      }
    }
  })()`;
}

/*
 * A scenario's fill (puppeteer-scenario-tab.ts), on the first element matching a selector (the one puppeteer's
 * waitForSelector and locators pick too).
 */
function firstMatch(selector: string): string {
  return `document.querySelector(${JSON.stringify(selector)})`;
}

/**
 * What a fill finds: 'missing', 'disabled', 'text' (a textarea, a text-like input, contenteditable) or 'other'
 * (a select, a checkbox, …).
 */
export function fillTargetScript(selector: string): string {
  return `(() => {
    const el = ${firstMatch(selector)};
    if (!el) return 'missing';
    if (el.hasAttribute('disabled')) return 'disabled';
    if (el instanceof HTMLTextAreaElement) return 'text';
    if (el instanceof HTMLInputElement) return ['text', 'url', 'tel', 'search', 'password', 'number', 'email'].includes(el.type) ? 'text' : 'other';
    return el instanceof HTMLElement && el.isContentEditable ? 'text' : 'other';
  })()`;
}

/** Focuses the field and selects its content, so an insertion replaces it. False when the element is gone. */
export function focusAndSelectAllScript(selector: string): string {
  return `(() => {
    const el = ${firstMatch(selector)};
    if (!el) return false;
    el.focus();
    if (typeof el.select === 'function') { el.select(); return true; }
    const range = document.createRange();
    range.selectNodeContents(el);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    return true;
  })()`;
}
