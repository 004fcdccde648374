/*
 * The dashboard's only script, served from /dashboard/assets/dashboard.js (the CSP forbids inline scripts). It only
 * adds comfort: every page works without it.
 */
document.addEventListener('click', function (event) {
  var button = event.target.closest && event.target.closest('[data-copy]');
  if (!button) return;
  var field = document.getElementById(button.getAttribute('data-copy'));
  field.select();
  var done = function () { button.textContent = 'Copied'; };
  if (navigator.clipboard) navigator.clipboard.writeText(field.value).then(done, function () { document.execCommand('copy'); done(); });
  else { document.execCommand('copy'); done(); }
});
document.addEventListener('change', function (event) {
  var all = event.target;
  if (!all.matches || !all.matches('[data-select-all]')) return;
  document.querySelectorAll('input[name="ids"]').forEach(function (box) { box.checked = all.checked; });
});
document.addEventListener('submit', function (event) {
  var form = event.target;
  var question = form.getAttribute('data-confirm') || (event.submitter && event.submitter.getAttribute('data-confirm'));
  if (question && !window.confirm(question)) event.preventDefault();
});

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
  // With errors on the page, the summary comes first: focus it so a screen reader announces it.
  var errors = document.getElementById('form-errors');
  if (errors) { errors.setAttribute('tabindex', '-1'); errors.focus(); }
})();
/* --- websites and the capture playground (issue 19): a capture's result panel follows its job --- */
(function () {
  var panel = document.querySelector('[data-job-poll]');
  if (!panel || !window.fetch) return;
  var url = panel.getAttribute('data-job-poll');
  var body = panel.querySelector('.capture-result-body');
  var failures = 0;
  function later() { setTimeout(poll, 1000); }
  function poll() {
    fetch(url, { credentials: 'same-origin', headers: { Accept: 'application/json' } })
      .then(function (res) { if (!res.ok) throw new Error('HTTP ' + res.status); return res.json(); })
      .then(function (state) {
        body.innerHTML = state.html;
        if (state.finished) panel.removeAttribute('data-job-poll');
        else later();
      })
      .catch(function () { if (++failures < 10) later(); });
  }
  later();
})();
