/**
 * Server-rendered HTML without a template engine: `html` escapes every interpolated value unless it is
 * already Html, so markup is built from trusted fragments and user data can never inject any.
 */
export class Html {
  constructor(private readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

function render(value: unknown): string {
  if (value instanceof Html) return value.toString();
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  // Only strings, numbers and booleans reach here: templates interpolate Html, lists and primitives.
  return escapeHtml(typeof value === 'string' ? value : JSON.stringify(value));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0];
  values.forEach((value, i) => (out += render(value) + strings[i + 1]));
  return new Html(out);
}

/** `2026-11-22 07:30 UTC` in a <time> element carrying the exact instant. */
export function utcTime(date: Date | null | undefined, empty = '—'): Html {
  if (!date) return html`${empty}`;
  const iso = date.toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
}

/** A status word as a coloured badge (colour is never the only signal: the word is always shown). */
export function badge(status: string): Html {
  return html`<span class="badge badge-${status.replace(/[^a-z_]/g, '')}">${status}</span>`;
}
