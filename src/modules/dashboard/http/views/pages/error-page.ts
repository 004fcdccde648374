import { bareLayout } from '../layout';
import { Html, html } from '../html';

export function errorPage(status: number, message: string): Html {
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
  return bareLayout(
    title,
    html`<div class="card signin" role="alert"><h1>${title}</h1><p>${message}</p><p><a href="/dashboard">Back to the dashboard</a></p></div>`,
  );
}
