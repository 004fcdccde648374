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
