import type { DashboardViewer } from '../../dashboard-request';
import { bareLayout, layout } from '../layout';
import { Html, html } from '../html';

/** An error as a page; a signed-in viewer keeps the navigation, so a wrong address is not a dead end. */
export function errorPage(status: number, message: string, viewer?: DashboardViewer): Html {
  const title =
    status === 404
      ? 'Not found'
      : status === 429
        ? 'Too many requests'
        : status === 403
          ? 'Not allowed'
          : status >= 500
            ? 'Something went wrong'
            : 'That did not work';
  const card = html`<div class="card signin" role="alert"><h1>${title}</h1><p>${message}</p><p><a href="/dashboard">Back to the dashboard</a></p></div>`;
  return viewer ? layout(viewer, null, title, card, { heading: false }) : bareLayout(title, card);
}
