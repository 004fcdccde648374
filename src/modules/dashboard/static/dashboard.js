/*
 * The dashboard's only script, served from /dashboard/assets/dashboard.js (the CSP forbids inline scripts). It only
 * adds comfort: every page works without it.
 */
document.addEventListener('click', function (event) {
  var button = event.target.closest && event.target.closest('[data-copy]');
  if (!button) return;
  var field = document.getElementById(button.getAttribute('data-copy'));
  field.select();
  var done = function () {
    button.textContent = 'Copied';
  };
  if (navigator.clipboard)
    navigator.clipboard.writeText(field.value).then(done, function () {
      document.execCommand('copy');
      done();
    });
  else {
    document.execCommand('copy');
    done();
  }
});
document.addEventListener('change', function (event) {
  var all = event.target;
  if (!all.matches || !all.matches('[data-select-all]')) return;
  document.querySelectorAll('input[name="ids"]').forEach(function (box) {
    box.checked = all.checked;
  });
});
document.addEventListener('submit', function (event) {
  var form = event.target;
  var submitter = event.submitter;
  var question = (submitter && submitter.getAttribute('data-confirm')) || form.getAttribute('data-confirm');
  if (!question) return;
  if (!window.confirm(question)) {
    event.preventDefault();
    return;
  }
  // Asked here already: tell the server, which otherwise shows its own confirmation page (no script needed).
  var name = submitter && submitter.getAttribute('data-confirmed-field');
  if (name && !form.querySelector('input[type=hidden][name="' + name + '"]')) {
    var field = document.createElement('input');
    field.type = 'hidden';
    field.name = name;
    field.value = '1';
    form.appendChild(field);
  }
});

/* --- layout (issue 19): the phone Menu (a <details>) also closes on Escape or a tap outside it --- */
(function () {
  var menu = document.querySelector('details.menu');
  if (!menu) return;
  document.addEventListener('click', function (event) {
    if (menu.open && !menu.contains(event.target)) menu.open = false;
  });
  document.addEventListener('keydown', function (event) {
    if (event.key === 'Escape' && menu.open) {
      menu.open = false;
      menu.querySelector('summary').focus();
    }
  });
})();

/* --- gallery lightbox (issue 19): previous / next, zoom, keyboard; without script each tile opens its own page --- */
(function () {
  var links = Array.prototype.slice.call(document.querySelectorAll('a[data-lightbox]'));
  if (!links.length || typeof HTMLDialogElement !== 'function') return;
  var dialog = document.createElement('dialog');
  dialog.className = 'lightbox';
  dialog.setAttribute('aria-label', 'Screenshot viewer');
  // Fixed markup only: every text that comes from the page is set with textContent below.
  dialog.innerHTML =
    '<div class="lb-bar"><div class="lb-caption"><strong class="lb-title"></strong> <span class="muted lb-count"></span></div>' +
    '<div class="lb-tools"><button type="button" class="lb-zoom" aria-pressed="false" aria-keyshortcuts="+" title="Zoom (+ / −)">Zoom</button>' +
    '<a class="lb-open" href="#">Details</a><a class="lb-download" href="#">Download</a>' +
    '<button type="button" class="lb-close" aria-keyshortcuts="Escape" title="Close (Esc)">Close <span aria-hidden="true">✕</span></button></div></div>' +
    '<div class="lb-stage"><button type="button" class="lb-prev" aria-label="Previous screenshot" aria-keyshortcuts="ArrowLeft" title="Previous (←)">‹</button>' +
    '<img class="lb-image" alt=""><button type="button" class="lb-next" aria-label="Next screenshot" aria-keyshortcuts="ArrowRight" title="Next (→)">›</button></div>';
  document.body.appendChild(dialog);
  var $ = function (selector) {
    return dialog.querySelector(selector);
  };
  var img = $('.lb-image'),
    prev = $('.lb-prev'),
    next = $('.lb-next'),
    zoom = $('.lb-zoom');
  var index = -1;

  function setZoom(on) {
    dialog.classList.toggle('zoomed', on);
    zoom.setAttribute('aria-pressed', on ? 'true' : 'false');
  }
  function show(i) {
    if (i < 0 || i >= links.length) return;
    index = i;
    var link = links[i];
    var thumb = link.querySelector('img');
    setZoom(false);
    img.src = link.getAttribute('data-full');
    img.alt = thumb ? thumb.alt : '';
    $('.lb-title').textContent = link.getAttribute('data-caption') || '';
    $('.lb-count').textContent = i + 1 + ' of ' + links.length + (link.getAttribute('data-size') ? ' · ' + link.getAttribute('data-size') + ' px' : '');
    $('.lb-open').href = link.getAttribute('href');
    $('.lb-download').href = link.getAttribute('href') + '/download';
    prev.disabled = i === 0;
    next.disabled = i === links.length - 1;
    dialog.setAttribute('data-index', String(i));
    if (i + 1 < links.length) new Image().src = links[i + 1].getAttribute('data-full');
  }
  function close() {
    if (dialog.open) dialog.close();
  }

  document.addEventListener('click', function (event) {
    var link = event.target.closest && event.target.closest('a[data-lightbox]');
    if (!link || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    show(links.indexOf(link));
    if (!dialog.open) dialog.showModal();
    $('.lb-close').focus();
  });
  prev.addEventListener('click', function () {
    show(index - 1);
  });
  next.addEventListener('click', function () {
    show(index + 1);
  });
  zoom.addEventListener('click', function () {
    setZoom(!dialog.classList.contains('zoomed'));
  });
  img.addEventListener('click', function () {
    setZoom(!dialog.classList.contains('zoomed'));
  });
  $('.lb-close').addEventListener('click', close);
  $('.lb-stage').addEventListener('click', function (event) {
    if (event.target === this) close();
  });
  // On a touch screen a sideways swipe (not while zoomed, where it scrolls the picture) goes to the next or previous one.
  var touchX = null;
  $('.lb-stage').addEventListener(
    'touchstart',
    function (event) {
      touchX = event.touches.length === 1 ? event.touches[0].clientX : null;
    },
    { passive: true },
  );
  $('.lb-stage').addEventListener('touchend', function (event) {
    if (touchX === null || dialog.classList.contains('zoomed')) return;
    var dx = event.changedTouches[0].clientX - touchX;
    touchX = null;
    if (Math.abs(dx) > 50) show(dx < 0 ? index + 1 : index - 1);
  });
  $('.lb-stage').addEventListener('touchcancel', function () {
    touchX = null;
  });
  dialog.addEventListener('keydown', function (event) {
    if (event.key === 'ArrowLeft') {
      event.preventDefault();
      show(index - 1);
    } else if (event.key === 'ArrowRight') {
      event.preventDefault();
      show(index + 1);
    } else if (event.key === '+' || event.key === '=' || event.key === 'z') {
      event.preventDefault();
      setZoom(true);
    } else if (event.key === '-') {
      event.preventDefault();
      setZoom(false);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      close();
    }
  });
  dialog.addEventListener('close', function () {
    img.removeAttribute('src');
    if (links[index]) links[index].focus();
    dialog.removeAttribute('data-index');
  });
})();

/* --- automation: scenario editor, schedules (issue 19) --- */
(function () {
  // After "add / remove / move step" the form comes back from the server: bring the step that changed into view.
  var focus = document.getElementById('focus-step');
  var step = focus && document.getElementById(focus.value);
  if (step) {
    step.scrollIntoView({ block: 'center' });
    var input = step.querySelector('input:not([type=hidden]), select');
    if (input) input.focus({ preventScroll: true });
  }
  // A new schedule starts in the browser's own time zone rather than UTC (the field stays editable).
  var zone = document.querySelector('input[data-guess-zone]');
  if (zone && zone.value === 'UTC' && window.Intl && Intl.DateTimeFormat) {
    var guessed = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (guessed && /^[A-Z][A-Za-z_]+\/[A-Za-z_\/+-]+$/.test(guessed) && guessed !== 'Etc/Unknown') zone.value = guessed;
  }
  // The day of the week matters for weekly schedules only: shown when the frequency is weekly (always without script).
  var frequency = document.getElementById('schedule-frequency');
  var day = document.getElementById('schedule-day');
  if (frequency && day && day.closest) {
    var dayField = day.closest('.field');
    var showDay = function () {
      dayField.hidden = frequency.value !== 'weekly';
    };
    frequency.addEventListener('change', showDay);
    showDay();
  }
  // With errors on the page, the summary comes first: focus it so a screen reader announces it.
  var errors = document.getElementById('form-errors');
  if (errors) {
    errors.setAttribute('tabindex', '-1');
    errors.focus();
  }
})();
/* --- websites and the capture playground (issue 19): a capture's result panel follows its job --- */
(function () {
  /** The result panel polls its job (JSON with the panel's markup) until the job has ended. */
  function followJob(root) {
    var panel = root.querySelector('[data-job-poll]');
    if (!panel || !window.fetch || !window.DOMParser) return;
    var url = panel.getAttribute('data-job-poll');
    var body = panel.querySelector('.capture-result-body');
    var failures = 0;
    var started = Date.now();
    function elapsed() {
      var line = body.querySelector('.job-line');
      if (!line) return;
      var span = line.querySelector('.elapsed') || line.appendChild(document.createElement('span'));
      span.className = 'muted elapsed';
      span.textContent = ' · ' + Math.round((Date.now() - started) / 1000) + ' s';
    }
    function later() {
      setTimeout(poll, 1000);
    }
    function poll() {
      if (!panel.hasAttribute('data-job-poll')) return; // stopped meanwhile (the playground's Cancel)
      fetch(url, { credentials: 'same-origin', headers: { Accept: 'application/json' } })
        .then(function (res) {
          if (!res.ok) throw new Error('HTTP ' + res.status);
          return res.json();
        })
        .then(function (state) {
          if (!panel.hasAttribute('data-job-poll')) return;
          // Parsed apart and cleaned before it is inserted (a refresh meta acts the moment it enters the page).
          var fresh = new DOMParser().parseFromString('<body>' + state.html, 'text/html').body;
          withoutReloads(fresh);
          body.replaceChildren.apply(body, Array.prototype.slice.call(fresh.childNodes));
          if (state.finished) {
            panel.removeAttribute('data-job-poll');
            var cancel = panel.querySelector('form[data-cancel-job]');
            if (cancel) cancel.remove(); // nothing left to cancel
            refreshWhenJobEnds();
          } else {
            elapsed();
            later();
          }
        })
        .catch(function () {
          if (++failures < 10) later();
        });
    }
    later();
  }
  /*
   * The playground's Cancel while its capture waits (issue 46): posted in place (the same form, its CSRF token, asking
   * for JSON). Cancelled, or already ended: the polling stops and the panel shows the job as it now is, with what
   * happened ("Cancelled…"). Already capturing: it says the capture cannot be stopped now and will finish, and the
   * panel goes on following it. Without script the form posts and the page comes back saying the same.
   */
  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (!form.matches || !form.matches('form[data-cancel-job]') || !window.fetch || !window.FormData) return;
    event.preventDefault();
    var panel = form.closest('.capture-result');
    var button = form.querySelector('button[type="submit"]');
    if (button) button.disabled = true;
    fetch(form.getAttribute('action'), {
      method: 'POST',
      body: new URLSearchParams(new FormData(form)).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      credentials: 'same-origin',
    })
      .then(function (res) {
        if (res.redirected && new URL(res.url).pathname === '/dashboard/login') {
          location.assign(res.url);
          return;
        }
        if (!res.ok) throw new Error('HTTP ' + res.status);
        return res.json().then(function (answer) {
          var note = document.createElement('p');
          note.className = 'notice ' + answer.kind;
          note.id = 'cancel-notice';
          note.setAttribute('role', 'status');
          note.textContent = answer.message;
          var old = panel.querySelector('#cancel-notice');
          if (old) old.remove();
          var body = panel.querySelector('.capture-result-body');
          if (answer.finished) {
            panel.removeAttribute('data-job-poll'); // the polling stops here
            var fresh = new DOMParser().parseFromString('<body>' + answer.html, 'text/html').body;
            withoutReloads(fresh);
            body.replaceChildren.apply(body, Array.prototype.slice.call(fresh.childNodes));
          }
          body.parentNode.insertBefore(note, body);
          form.remove();
          if (answer.finished) refreshWhenJobEnds();
        });
      })
      .catch(function (err) {
        if (window.console) console.error('cancelling', err);
        form.submit();
      });
  });
  /*
   * Parts of the page that show the job too (the overview's Usage and Recent jobs) were drawn while it ran: once it
   * has ended, they are fetched again from this page's address and replaced, each by its id.
   */
  function refreshWhenJobEnds() {
    var parts = document.querySelectorAll('[data-refresh-when-job-ends][id]');
    if (!parts.length) return;
    fetch(location.href, { credentials: 'same-origin' })
      .then(function (res) {
        if (!res.ok) throw new Error('HTTP ' + res.status);
        return res.text();
      })
      .then(function (text) {
        var doc = new DOMParser().parseFromString(text, 'text/html');
        parts.forEach(function (part) {
          var fresh = doc.getElementById(part.id);
          if (!fresh) return;
          withoutReloads(fresh);
          part.replaceWith(document.importNode(fresh, true));
        });
      })
      .catch(function (err) {
        if (window.console) console.error('refreshing after the job ended', err);
      });
  }
  /* Options that the chosen format does not use are disabled (so not sent); the server judges them anyway. */
  function formatAware(root) {
    root.querySelectorAll('form[data-default-format]').forEach(function (form) {
      var format = form.querySelector('select[name="format"]');
      if (!format) return;
      function apply() {
        var chosen = format.value || form.getAttribute('data-default-format');
        form.querySelectorAll('[data-formats]').forEach(function (field) {
          var off = field.getAttribute('data-formats').split(' ').indexOf(chosen) < 0;
          field.classList.toggle('not-applicable', off);
          field.querySelectorAll('input, select, textarea').forEach(function (control) {
            control.disabled = off;
          });
        });
      }
      format.addEventListener('change', apply);
      apply();
    });
  }
  /*
   * What reloads a page without script (<noscript><meta http-equiv="refresh">) must not reach this live page:
   * DOMParser parses with scripting off, so a noscript's content comes out as real elements, and a refresh meta
   * inserted here would reload the page ~2 s later, erasing the result and what was typed. This script follows the
   * job itself, so every noscript and every refresh meta of fetched markup is dropped before it is inserted.
   */
  function withoutReloads(node) {
    node.querySelectorAll('noscript, meta[http-equiv]').forEach(function (el) {
      if (el.tagName === 'NOSCRIPT' || /^refresh$/i.test(el.getAttribute('http-equiv'))) el.remove();
    });
  }
  /*
   * While a try is being answered (a URL's render answers once the picture is taken, up to the capture's 30 s): the
   * seconds gone by, what is happening, and "Stop waiting". A render cannot be cancelled once it is queued (the service
   * has no cancel for a job), so the button stops this page waiting and says so: the capture ends on the server by
   * itself and its file is dropped an hour later; a website's queued job still lands in the gallery.
   */
  function waiting(form, data, abort, button) {
    var panel = document.getElementById('capture-result');
    if (!panel) return null;
    var url = data.get('website_id') ? '' : data.get('url') || '';
    var started = Date.now();
    panel.classList.remove('muted');
    panel.innerHTML =
      '<h2>Result</h2><div class="capture-result-body" id="try-progress"><p class="job-line"><span class="badge badge-running">running</span> ' +
      '<span id="try-status"></span> <span class="muted" id="try-elapsed">0 s</span></p>' +
      '<progress class="job-progress" aria-label="Capture in progress"></progress>' +
      (abort ? '<p><button type="button" class="secondary" id="stop-waiting">Stop waiting</button></p>' : '') +
      '<p class="hint" id="try-cancel-note"></p></div>';
    panel.querySelector('#try-status').textContent = url ? 'Capturing ' + url + '…' : 'Queuing the capture…';
    panel.querySelector('#try-cancel-note').textContent = url
      ? 'The answer comes when the picture is taken (at most 30 s). Stop waiting stops this page only: a render already ' +
        'started cannot be cancelled; it ends by itself on the server, and nothing is added to your gallery.'
      : '';
    var timer = setInterval(function () {
      var seconds = Math.round((Date.now() - started) / 1000);
      panel.querySelector('#try-elapsed').textContent = seconds + ' s';
      if (url && seconds >= 10) panel.querySelector('#try-status').textContent = 'Still waiting for ' + url + ' to settle…';
    }, 1000);
    var stop = panel.querySelector('#stop-waiting');
    if (stop)
      stop.addEventListener('click', function () {
        var seconds = Math.round((Date.now() - started) / 1000);
        abort.abort();
        clearInterval(timer);
        if (button) button.disabled = false;
        panel.querySelector('.capture-result-body').innerHTML =
          '<p class="job-line"><span class="badge badge-failed">stopped</span> <span class="muted"></span></p>' +
          '<p class="notice info" id="stopped-note"></p>';
        panel.querySelector('.job-line .muted').textContent = 'after ' + seconds + ' s';
        panel.querySelector('#stopped-note').textContent =
          'Stopped waiting. The render that had started could not be cancelled: it ends by itself on the server ' +
          '(within its 30 s limit) and its result is thrown away. Change the options and press Try again.';
      });
    return {
      stop: function () {
        clearInterval(timer);
      },
    };
  }
  /*
   * A capture form marked data-in-place (Take screenshot with options, the playground's Try) is posted without
   * leaving the page: the same post the form makes; the answer's <main> (the queued job's panel, or the form with
   * its errors) replaces this one, the address becomes the answer's, and the new panel follows the job. A button
   * marked data-navigate (Save as website) submits as usual.
   */
  function inPlace(root) {
    root.querySelectorAll('form[data-in-place]').forEach(function (form) {
      if (!window.fetch || !window.DOMParser || !window.FormData || !window.history) return;
      form.addEventListener('submit', function (event) {
        var button = event.submitter;
        if (event.defaultPrevented || (button && button.hasAttribute('data-navigate'))) return;
        event.preventDefault();
        var data = new URLSearchParams(new FormData(form));
        if (button && button.name) data.set(button.name, button.value);
        if (button) button.disabled = true;
        var abort = window.AbortController ? new AbortController() : null;
        var progress = form.hasAttribute('data-progress') ? waiting(form, data, abort, button) : null;
        // getAttribute: form.action would be a control named "action".
        fetch(form.getAttribute('action'), {
          method: 'POST',
          body: data.toString(),
          // Exactly this type: the dashboard takes forms as application/x-www-form-urlencoded without parameters.
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          credentials: 'same-origin',
          signal: abort ? abort.signal : undefined,
        })
          .then(function (res) {
            if (progress) progress.stop();
            // The session ended meanwhile: the answer is the sign-in page (what was typed is kept): go there.
            if (res.redirected && new URL(res.url).pathname === '/dashboard/login') {
              location.assign(res.url);
              return;
            }
            return res.text().then(function (text) {
              var next = new DOMParser().parseFromString(text, 'text/html').querySelector('main');
              if (!next) throw new Error('no page');
              withoutReloads(next);
              document.querySelector('main').replaceWith(next);
              if (res.redirected) history.replaceState(null, '', res.url);
              formatAware(next);
              followJob(next);
              inPlace(next);
              snippetTabs(next);
              var errors = document.getElementById('form-errors');
              var result = document.getElementById('capture-result');
              if (errors) {
                errors.setAttribute('tabindex', '-1');
                errors.focus();
              } else if (result && result.scrollIntoView && res.redirected) result.scrollIntoView({ block: 'nearest' });
            });
          })
          .catch(function (err) {
            if (progress) progress.stop();
            if (err && err.name === 'AbortError') return; // "Stop waiting": the panel says what happens now
            if (window.console) console.error('posting in place', err);
            form.submit();
          });
      });
    });
  }
  /* The playground's snippets (issue 46): four languages as tabs; without script they stand one under the other. */
  function snippetTabs(root) {
    root.querySelectorAll('[data-tabs]').forEach(function (box) {
      var list = box.querySelector('[role="tablist"]');
      var tabs = box.querySelectorAll('[role="tab"]');
      if (!list || !tabs.length) return;
      list.hidden = false;
      box.classList.add('tabbed');
      function select(tab) {
        tabs.forEach(function (t) {
          var on = t === tab;
          t.setAttribute('aria-selected', on ? 'true' : 'false');
          t.tabIndex = on ? 0 : -1;
          var panel = document.getElementById(t.getAttribute('aria-controls'));
          if (panel) panel.hidden = !on;
        });
      }
      tabs.forEach(function (tab, i) {
        tab.addEventListener('click', function () {
          select(tab);
        });
        tab.addEventListener('keydown', function (event) {
          var step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
          if (!step) return;
          var next = tabs[(i + step + tabs.length) % tabs.length];
          select(next);
          next.focus();
        });
      });
      select(tabs[0]);
    });
  }
  followJob(document);
  formatAware(document);
  inPlace(document);
  snippetTabs(document);
})();
/* --- change history (issue 20): "changes only" applies at once; the compare view gets a before/after slider --- */
(function () {
  document.addEventListener('change', function (event) {
    var box = event.target;
    if (box.matches && box.matches('[data-autosubmit]') && box.form) box.form.submit();
  });
  var view = document.querySelector('[data-compare]');
  var before = view && view.querySelector('.ch-before img');
  var after = view && view.querySelector('.ch-after img');
  if (!before || !after) return; // nothing to slide between (first capture, previous deleted)
  var diff = view.querySelector('.ch-diff img');
  var pair = view.querySelector('.ch-pair');
  // Side by side: the two frames scroll together (a full page is taller than the frame).
  // The frame being scrolled leads until it rests a moment; the scroll events the others fire in reply are ignored.
  var frames = pair.querySelectorAll('.ch-frame');
  var leader = null;
  var rest = 0;
  Array.prototype.forEach.call(frames, function (frame) {
    frame.addEventListener('scroll', function () {
      if (leader && leader !== frame) return;
      leader = frame;
      clearTimeout(rest);
      rest = setTimeout(function () {
        leader = null;
      }, 150);
      Array.prototype.forEach.call(frames, function (other) {
        if (other !== frame) other.scrollTop = frame.scrollTop;
      });
    });
  });
  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text) node.textContent = text;
    return node;
  }
  // The slider: the newer capture, and the older one over it cut at the handle (clip-path reads --ch-pos).
  var slider = el('div', 'ch-slider');
  var frame = el('div', 'ch-frame');
  var stage = el('div', 'ch-stage');
  var base = el('img');
  base.src = after.src;
  base.alt = after.alt;
  var over = el('div', 'ch-over');
  var old = el('img');
  old.src = before.src;
  old.alt = before.alt;
  over.appendChild(old);
  stage.appendChild(base);
  stage.appendChild(over);
  stage.appendChild(el('div', 'ch-handle'));
  frame.appendChild(stage);
  var ends = el('div', 'ch-ends');
  ends.appendChild(el('span', '', '← Before'));
  ends.appendChild(el('span', '', diff ? 'After (or diff) →' : 'After →'));
  var range = el('input');
  range.type = 'range';
  range.min = '0';
  range.max = '100';
  range.value = '50';
  range.setAttribute('aria-label', 'Share of the picture showing the previous capture');
  slider.appendChild(frame);
  slider.appendChild(range);
  slider.appendChild(ends);
  pair.parentNode.insertBefore(slider, pair.nextSibling);
  function place(percent) {
    var p = Math.max(0, Math.min(100, percent));
    stage.style.setProperty('--ch-pos', p + '%'); // CSSOM, not a style attribute: allowed by the CSP
    range.value = String(Math.round(p));
  }
  range.addEventListener('input', function () {
    place(Number(range.value));
  });
  var dragging = false;
  function follow(event) {
    var box = stage.getBoundingClientRect();
    place(((event.clientX - box.left) / box.width) * 100);
  }
  stage.addEventListener('pointerdown', function (event) {
    dragging = true;
    follow(event);
  });
  window.addEventListener('pointermove', function (event) {
    if (dragging) follow(event);
  });
  window.addEventListener('pointerup', function () {
    dragging = false;
  });
  // Tools: side by side or slider; in the slider the newer side can show the diff instead (the overlay).
  var tools = el('div', 'ch-tools');
  tools.setAttribute('role', 'group');
  tools.setAttribute('aria-label', 'How to compare');
  var sideButton = el('button', 'small', 'Side by side');
  var sliderButton = el('button', 'small', 'Slider');
  sideButton.type = sliderButton.type = 'button';
  tools.appendChild(sideButton);
  tools.appendChild(sliderButton);
  if (diff) {
    var overlay = el('label');
    var check = el('input');
    check.type = 'checkbox';
    check.id = 'ch-diff-overlay';
    overlay.appendChild(check);
    overlay.appendChild(document.createTextNode('Show the diff on the after side'));
    tools.appendChild(overlay);
    check.addEventListener('change', function () {
      base.src = check.checked ? diff.src : after.src;
    });
  }
  view.insertBefore(tools, view.firstChild);
  function mode(name) {
    view.classList.toggle('ch-mode-slider', name === 'slider');
    sideButton.setAttribute('aria-pressed', String(name !== 'slider'));
    sliderButton.setAttribute('aria-pressed', String(name === 'slider'));
    if (overlay) overlay.hidden = name !== 'slider';
  }
  sideButton.addEventListener('click', function () {
    mode('side');
  });
  sliderButton.addEventListener('click', function () {
    mode('slider');
  });
  place(50);
  mode('slider');
})();
/*
 * --- scenario editor (issue 31): add / remove / move steps in the page, without a round trip ---
 * Without script each button posts the form and the server answers it with the change applied (step-form.ts). With
 * script the same change happens here: a new step is the server's own empty step of that type (a <template>), and
 * after every change each step's names, ids and labels are renumbered as the server numbers them (steps[0] is
 * "Step 1"), so the form posts exactly what the server's version of the page would have posted.
 */
(function () {
  var form = document.querySelector('form[data-live-steps]');
  var list = form && form.querySelector('ol.steps');
  if (!list || typeof HTMLTemplateElement !== 'function') return;
  var max = Number(form.getAttribute('data-max-steps')) || 50;
  var stale = false;

  function steps() {
    return Array.prototype.slice.call(list.children).filter(function (el) {
      return el.matches('li.step');
    });
  }
  function renumberAttr(el, name, pattern, replacement) {
    var value = el.getAttribute(name);
    if (value !== null) el.setAttribute(name, value.replace(pattern, replacement));
  }
  function renumber() {
    var all = steps();
    all.forEach(function (li, i) {
      li.id = 'step-' + i;
      li.setAttribute('data-step-index', String(i));
      li.querySelectorAll('*').forEach(function (el) {
        renumberAttr(el, 'name', /^steps\[\d+\]/, 'steps[' + i + ']');
        renumberAttr(el, 'id', /^step-\d+-/, 'step-' + i + '-');
        renumberAttr(el, 'for', /^step-\d+-/, 'step-' + i + '-');
        renumberAttr(el, 'aria-describedby', /^step-\d+-/, 'step-' + i + '-');
        renumberAttr(el, 'aria-label', /step \d+/, 'step ' + (i + 1));
        if (el.name === 'op') renumberAttr(el, 'value', /^(up|down|remove):\d+$/, '$1:' + i);
      });
      var legend = li.querySelector('legend');
      if (legend && legend.firstChild && legend.firstChild.nodeType === 3) legend.firstChild.nodeValue = 'Step ' + (i + 1) + ' ';
      var up = li.querySelector('button[value^="up:"]');
      var down = li.querySelector('button[value^="down:"]');
      if (up) up.disabled = i === 0;
      if (down) down.disabled = i === all.length - 1;
    });
    var count = document.getElementById('step-count');
    if (count) count.textContent = String(all.length);
    var none = document.getElementById('no-steps');
    if (none) none.hidden = all.length > 0;
    form.querySelectorAll('button[value^="add:"]').forEach(function (button) {
      button.disabled = all.length >= max;
    });
  }
  /* The last save's errors name steps by their old numbers: once steps move they would point at the wrong one. */
  function dropStaleErrors() {
    if (stale) return;
    stale = true;
    list.querySelectorAll('.field-error').forEach(function (el) {
      el.remove();
    });
    list.querySelectorAll('[aria-invalid]').forEach(function (el) {
      el.removeAttribute('aria-invalid');
      el.removeAttribute('aria-describedby');
    });
    list.querySelectorAll('li.has-error').forEach(function (el) {
      el.classList.remove('has-error');
    });
    var summary = document.getElementById('form-errors');
    if (summary) summary.remove();
  }
  function focusIn(li) {
    var input = li && li.querySelector('input:not([type=hidden]), select, textarea');
    if (!input) return;
    li.scrollIntoView({ block: 'nearest' });
    input.focus({ preventScroll: true });
  }
  form.addEventListener('submit', function (event) {
    var button = event.submitter;
    var match = button && button.name === 'op' && /^(add|remove|up|down):(.+)$/.exec(button.value);
    if (!match || event.defaultPrevented) return;
    var all = steps();
    var i = Number(match[2]);
    if (match[1] === 'add') {
      var template = document.getElementById('step-template-' + match[2]);
      if (!template || all.length >= max) return; // the server says why
      event.preventDefault();
      dropStaleErrors();
      var li = template.content.firstElementChild.cloneNode(true);
      list.appendChild(li);
      renumber();
      focusIn(li);
      return;
    }
    var step = all[i];
    if (!step) return;
    event.preventDefault();
    dropStaleErrors();
    if (match[1] === 'remove') {
      step.remove();
      renumber();
      var next = steps()[Math.min(i, steps().length - 1)];
      if (next) focusIn(next);
      else form.querySelector('button[value^="add:"]').focus();
      return;
    }
    var other = match[1] === 'up' ? all[i - 1] : all[i + 1];
    if (!other) return;
    if (match[1] === 'up') list.insertBefore(step, other);
    else list.insertBefore(other, step);
    renumber();
    // Focus stays on the moved step's own button (now renumbered), as the keyboard user left it.
    var again = step.querySelector('button[value^="' + match[1] + ':"]');
    if (again && !again.disabled) again.focus();
    else focusIn(step);
  });
})();
/*
 * --- website pickers that search as you type (issue 45) ---
 * A search field marked data-website-choices="<select id>" narrows its select from the server (the same indexed
 * query that drew the page: at most 50 matches, the chosen website always kept), 200 ms after the last key. Without
 * script the field still works: a filter form submits it, an editor's Find button posts the form back.
 * A field marked data-website-checks="<list id>" does the same for a list of ticks (a channel's "Only for these
 * websites"): the list's unticked websites are replaced by the server's matches; the ticked ones stay, first.
 */
(function () {
  if (!window.fetch) return;
  /** The server's matches for a search (GET /dashboard/website-choices). */
  function choicesFor(params) {
    return fetch('/dashboard/website-choices?' + params.toString(), { credentials: 'same-origin', headers: { Accept: 'application/json' } }).then(
      function (res) {
        if (!res.ok) throw new Error('HTTP ' + res.status);
        return res.json();
      },
    );
  }
  /**
   * Asks the server for the matches of the field's search 200 ms after the last key, and at once on the field's Find
   * button or on Enter — Enter only beside a Find button unless enterAlways (elsewhere Enter submits the field's own
   * form) — and hands the latest answer to show (an answer to an older search arriving late is dropped). params()
   * builds the search's query.
   */
  function searchAsTyped(input, params, show, enterAlways) {
    var timer = null;
    var asked = 0;
    function refresh() {
      var mine = ++asked;
      choicesFor(params())
        .then(function (choices) {
          if (mine !== asked) return;
          show(choices);
          noteMore(input, choices.more);
        })
        .catch(function () {
          /* the form's own search (a filter form, or Find posting back) still works */
        });
    }
    function now(event) {
      event.preventDefault();
      clearTimeout(timer);
      refresh();
    }
    input.addEventListener('input', function () {
      clearTimeout(timer);
      timer = setTimeout(refresh, 200);
    });
    var find = input.parentNode.querySelector('button[name="find_website"]');
    if (find) find.addEventListener('click', now);
    input.addEventListener('keydown', function (event) {
      if (event.key === 'Enter' && (enterAlways || find)) now(event);
    });
  }
  /** Shows or hides the "more matches: type more" note of a search field. */
  function noteMore(input, more) {
    var note = document.getElementById(input.id + '-note');
    if (note) note.hidden = !more;
  }

  document.querySelectorAll('input[data-website-choices]').forEach(function (input) {
    var select = document.getElementById(input.getAttribute('data-website-choices'));
    if (!select) return;
    searchAsTyped(
      input,
      function () {
        var params = new URLSearchParams({ site: input.value.trim() });
        if (select.value) params.set('selected', select.value);
        return params;
      },
      function (choices) {
        var chosen = select.value;
        // The first option stays when it is no website ("Every website", "Choose a website").
        var keep = select.options.length && select.options[0].value === '' ? [select.options[0]] : [];
        var options = keep.concat(
          choices.websites.map(function (w) {
            var option = new Option(w.name, String(w.id));
            option.selected = String(w.id) === chosen;
            return option;
          }),
        );
        select.replaceChildren.apply(select, options);
      },
      false,
    );
  });

  document.querySelectorAll('input[data-website-checks]').forEach(function (input) {
    var list = document.getElementById(input.getAttribute('data-website-checks'));
    if (!list) return;
    searchAsTyped(
      input,
      function () {
        return new URLSearchParams({ site: input.value.trim() });
      },
      function (choices) {
        var ticked = {};
        list.querySelectorAll('label.check').forEach(function (label) {
          var box = label.querySelector('input');
          if (box && box.checked) ticked[box.value] = true;
          else label.remove();
        });
        choices.websites.forEach(function (w) {
          if (ticked[String(w.id)]) return;
          var label = document.createElement('label');
          label.className = 'check';
          var box = document.createElement('input');
          box.type = 'checkbox';
          box.name = 'website_ids';
          box.value = String(w.id);
          label.appendChild(box);
          label.appendChild(document.createTextNode(' ' + w.name));
          list.appendChild(label);
        });
        var none = document.getElementById(input.id + '-none');
        if (none) none.remove();
      },
      true,
    );
  });
})();
// Batches: a chosen CSV file is read into the form's CSV text (the server parses it with csv-parse).
document.addEventListener('change', function (event) {
  var input = event.target;
  if (!input.matches || !input.matches('[data-csv-into]') || !input.files || !input.files[0]) return;
  var target = document.getElementById(input.getAttribute('data-csv-into'));
  if (!target) return;
  input.files[0].text().then(function (text) {
    target.value = text;
    var details = target.closest('details');
    if (details) details.open = true;
  });
});
