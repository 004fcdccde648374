/**
 * The dashboard's only stylesheet and script, served from /dashboard/assets/ (so the Content-Security-Policy
 * can forbid inline code). The script only adds comfort — copy button, select all, confirm before delete —
 * every page works without it.
 */
export const DASHBOARD_CSS = `
:root { --fg:#1d2330; --muted:#5b6478; --line:#d9dee8; --bg:#f6f7fb; --card:#fff; --accent:#2454d6; --danger:#b42318; --ok:#067647; --warn:#b54708; }
* { box-sizing: border-box; }
body { margin:0; font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Liberation Sans",sans-serif; color:var(--fg); background:var(--bg); }
a { color:var(--accent); }
header.top { background:#111a2e; color:#fff; }
header.top .inner { max-width:1200px; margin:0 auto; padding:0 20px; display:flex; align-items:center; gap:16px; min-height:56px; flex-wrap:wrap; }
header.top .brand { font-weight:700; color:#fff; text-decoration:none; }
nav.main { display:flex; gap:4px; flex-wrap:wrap; flex:1; }
nav.main a, header.top .who a { color:#c8d2ea; text-decoration:none; padding:6px 9px; border-radius:6px; }
nav.main a[aria-current="page"], nav.main a:hover, header.top .who a:hover { background:#26324f; color:#fff; }
header.top .who { display:flex; align-items:center; gap:10px; color:#c8d2ea; font-size:14px; }
header.top .who span { max-width:180px; overflow:hidden; text-overflow:ellipsis; white-space:nowrap; }
main { max-width:1200px; margin:0 auto; padding:24px 20px 48px; }
h1 { font-size:24px; margin:0 0 16px; }
h2 { font-size:18px; margin:28px 0 12px; }
.card { background:var(--card); border:1px solid var(--line); border-radius:10px; padding:16px 18px; margin-bottom:16px; }
.grid { display:grid; grid-template-columns:repeat(auto-fill,minmax(240px,1fr)); gap:16px; }
.stat .label { color:var(--muted); font-size:13px; }
.stat .value { font-size:22px; font-weight:600; }
progress { width:100%; height:10px; margin-top:6px; accent-color:var(--accent); }
progress.near { accent-color:var(--warn); }
progress.limited { accent-color:var(--danger); }
.card.stat.limited { border-color:var(--danger); }
.limit-note { color:var(--danger); font-weight:600; margin-top:4px; }
table { width:100%; border-collapse:collapse; background:var(--card); border:1px solid var(--line); border-radius:10px; overflow:hidden; }
th, td { text-align:left; padding:10px 12px; border-bottom:1px solid var(--line); vertical-align:middle; }
th { font-size:13px; color:var(--muted); font-weight:600; background:#fafbfd; }
tr:last-child td { border-bottom:0; }
.muted { color:var(--muted); }
.mono, code { font-family:ui-monospace,"Liberation Mono",monospace; font-size:13px; }
button, .button { font:inherit; font-size:14px; padding:7px 14px; border-radius:7px; border:1px solid var(--accent); background:var(--accent); color:#fff; cursor:pointer; text-decoration:none; display:inline-block; }
button.secondary, .button.secondary { background:#fff; color:var(--accent); }
button.danger, .button.danger { background:var(--danger); border-color:var(--danger); }
button:disabled { opacity:.5; cursor:not-allowed; }
button:focus-visible, a:focus-visible, input:focus-visible, select:focus-visible { outline:3px solid #8fb0ff; outline-offset:2px; }
form.inline { display:inline; margin:0; }
form.inline + a { margin-left:10px; }
label { display:block; font-weight:600; margin:12px 0 4px; }
input[type=text], input[type=email], input[type=password], select { font:inherit; padding:8px 10px; border:1px solid #b8c0d0; border-radius:7px; width:100%; max-width:420px; background:#fff; }
.notice { padding:12px 16px; border-radius:8px; margin-bottom:16px; border:1px solid; }
.notice.info { background:#eef4ff; border-color:#b3c9ff; }
.notice.ok { background:#ecfdf3; border-color:#a6e9c4; }
.notice.warn { background:#fffaeb; border-color:#fedf89; }
.notice.error { background:#fef3f2; border-color:#fecdca; }
.secret { display:flex; gap:8px; align-items:center; flex-wrap:wrap; }
.secret input { max-width:560px; font-family:ui-monospace,"Liberation Mono",monospace; }
.badge { display:inline-block; padding:1px 8px; border-radius:999px; font-size:12px; font-weight:600; background:#eef0f5; color:var(--muted); }
.badge-succeeded, .badge-active, .badge-enabled, .badge-success { background:#dcfae6; color:var(--ok); }
.badge-failed, .badge-revoked { background:#fee4e2; color:var(--danger); }
.badge-running, .badge-queued { background:#fef0c7; color:var(--warn); }
.gallery { display:grid; grid-template-columns:repeat(auto-fill,minmax(220px,1fr)); gap:16px; list-style:none; padding:0; margin:0; }
.gallery li { background:var(--card); border:1px solid var(--line); border-radius:10px; overflow:hidden; display:flex; flex-direction:column; }
.gallery img, .thumb { display:block; width:100%; height:auto; background:#eef0f5; aspect-ratio:16/10; object-fit:cover; object-position:top; }
.gallery .meta { padding:8px 10px; font-size:13px; display:flex; flex-direction:column; gap:4px; }
.gallery .actions { display:flex; gap:8px; align-items:center; justify-content:space-between; padding:0 10px 10px; }
.thumb-cell img { width:160px; border:1px solid var(--line); border-radius:6px; }
.toolbar { display:flex; gap:12px; align-items:end; flex-wrap:wrap; margin-bottom:16px; }
.toolbar label { margin:0 0 4px; }
.pager { display:flex; gap:12px; align-items:center; margin-top:16px; }
.full img { max-width:100%; height:auto; border:1px solid var(--line); border-radius:8px; background:#fff; }
.signin { max-width:420px; margin:64px auto; }
.sr-only { position:absolute; width:1px; height:1px; overflow:hidden; clip:rect(0 0 0 0); white-space:nowrap; }
`;

export const DASHBOARD_JS = `
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
`;
