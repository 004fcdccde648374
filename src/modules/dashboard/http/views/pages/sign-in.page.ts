import { bareLayout } from '../layout';
import { CSRF_FIELD } from '../../csrf';
import { Html, html } from '../html';
import { noticeBox } from '../components';

export interface SignInView {
  csrfToken: string;
  email?: string;
  error?: string;
  next?: string;
  notice?: string;
}

export function signInPage(view: SignInView): Html {
  return bareLayout(
    'Sign in',
    html`<div class="signin">
  <h1>Sign in</h1>
  ${noticeBox(view.notice)}
  ${view.error ? html`<div class="notice error" role="alert" id="signin-error">${view.error}</div>` : ''}
  <form class="card" method="post" action="/dashboard/login">
    <input type="hidden" name="${CSRF_FIELD}" value="${view.csrfToken}">
    ${view.next ? html`<input type="hidden" name="next" value="${view.next}">` : ''}
    <label for="email">Email</label>
    <input type="email" id="email" name="email" autocomplete="username" required value="${view.email ?? ''}" autofocus>
    <label for="password">Password</label>
    <input type="password" id="password" name="password" autocomplete="current-password" required>
    <p><button type="submit">Sign in</button></p>
  </form>
  <p class="muted">No password yet? The operator sets one with <code>npm run cli -- account set-password --email you@example.com --password-stdin</code>.</p>
</div>`,
  );
}
