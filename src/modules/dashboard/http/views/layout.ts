import type { DashboardViewer } from '../dashboard-request';
import { CSRF_FIELD } from '../csrf';
import { Html, html } from './html';

export type Section = 'overview' | 'websites' | 'playground' | 'screenshots' | 'scenarios' | 'schedules' | 'jobs' | 'notifications' | 'api-keys';

const NAV: Array<[Section, string, string]> = [
  ['overview', 'Overview', '/dashboard'],
  ['websites', 'Websites', '/dashboard/websites'],
  ['playground', 'Playground', '/dashboard/playground'],
  ['screenshots', 'Screenshots', '/dashboard/screenshots'],
  ['scenarios', 'Scenarios', '/dashboard/scenarios'],
  ['schedules', 'Schedules', '/dashboard/schedules'],
  ['jobs', 'Jobs', '/dashboard/jobs'],
  ['notifications', 'Alerts', '/dashboard/notifications'],
  ['api-keys', 'API Keys', '/dashboard/settings/api-keys'],
];

/** The hidden CSRF field every form of a signed-in page carries. */
export function csrfField(viewer: DashboardViewer): Html {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${viewer.session.csrfToken}">`;
}

function documentShell(title: string, body: Html, refreshSeconds?: number): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${refreshSeconds ? html`<meta http-equiv="refresh" content="${refreshSeconds}">` : ''}
<title>${title} · Screenshot service</title>
<link rel="stylesheet" href="/dashboard/assets/dashboard.css">
<script src="/dashboard/assets/dashboard.js" defer></script>
</head>
<body>
${body}
</body>
</html>`;
}

export interface PageOptions {
  /** Reload the page while something it shows is still changing (a job running), without any script. */
  refreshSeconds?: number;
  /** false: the content brings its own heading (error pages' cards). Default true. */
  heading?: boolean;
}

function navLinks(section: Section | null): Html[] {
  return NAV.map(([key, label, href]) => html`<a href="${href}"${key === section ? html` aria-current="page"` : ''}>${label}</a>`);
}

/**
 * A signed-in page: top bar with navigation, the account and sign-out, then the content. Wide screens show the
 * navigation in the bar; narrow ones fold it into a "Menu" (<details>: opens and closes without any script).
 */
export function layout(viewer: DashboardViewer, section: Section | null, title: string, content: Html, options: PageOptions = {}): Html {
  const current = NAV.find(([key]) => key === section);
  const body = html`<a class="sr-only" href="#content">Skip to content</a>
<header class="top"><div class="inner">
  <a class="brand" href="/dashboard">Screenshot service</a>
  <nav class="main" aria-label="Main">
    ${navLinks(section)}
  </nav>
  <div class="who">
    <a href="/docs">API docs</a>
    <span title="${viewer.account.email}">${viewer.account.email}</span>
    <form class="inline" method="post" action="/dashboard/logout">${csrfField(viewer)}<button class="secondary" type="submit">Sign out</button></form>
  </div>
  <details class="menu">
    <summary><span class="menu-icon" aria-hidden="true"></span>Menu${current ? html`<span class="sr-only">, current page ${current[1]}</span>` : ''}</summary>
    <div class="menu-panel">
      <nav class="menu-links" aria-label="Main menu">
        ${navLinks(section)}
        <a href="/docs">API docs</a>
      </nav>
      <div class="menu-account">
        <span title="${viewer.account.email}">${viewer.account.email}</span>
        <form class="inline" method="post" action="/dashboard/logout">${csrfField(viewer)}<button class="secondary" type="submit">Sign out</button></form>
      </div>
    </div>
  </details>
</div></header>
<main id="content">
${options.heading === false ? '' : html`<h1>${title}</h1>`}
${content}
</main>`;
  return documentShell(title, body, options.refreshSeconds);
}

/** A page outside the signed-in area (sign-in, errors). */
export function bareLayout(title: string, content: Html): Html {
  return documentShell(title, html`<main id="content">${content}</main>`);
}
