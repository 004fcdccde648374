/**
 * What a notification says, and how each channel type carries it: Slack `{text, blocks}`, Discord
 * `{content, embeds}`, Microsoft Teams an Adaptive Card, ntfy a text body with Title/Click/Tags headers, e-mail
 * subject + text + simple HTML with the picture inline. Plain functions of the facts of one event.
 */
import { CHANNEL_TEST_EVENT, type ChannelType } from './channel';

/** The facts of one event a message is made of (gathered by the application layer from the event's data). */
export interface EventFacts {
  event: string;
  /** null: the website was deleted meanwhile (or the event has none, as a test). */
  websiteName: string | null;
  /** The URL that was captured, when known. */
  url: string | null;
  changedRatio: number | null;
  /** Text lines added and removed, and the first changed lines (`+ …` / `- …`), when the capture kept its text. */
  textDiff: { added: number; removed: number; firstLines: string[] } | null;
  error: string | null;
  /** The capture report's warnings, in words (a hung request, a cut page): what to bear in mind about the picture. */
  warnings?: readonly string[];
  /** The screenshot whose picture an e-mail carries inline (a CID attachment); null: none (a PDF, no capture). */
  inlineImage?: number | null;
  /** A test message: the capture it shows as an example (the account's newest). */
  example?: { websiteName: string | null; takenAt: Date };
  /**
   * compare, image and diff are signed links that open without a session (alert links); screenshot and job are
   * dashboard pages; alerts (test messages) the Alerts page.
   */
  links: { compare: string | null; screenshot: string | null; image: string | null; diff?: string | null; job: string | null; alerts?: string | null };
  /** batch.completed: the batch's name and counts. */
  batch?: { name: string | null; total: number; succeeded: number; failed: number; cancelled: number } | null;
}

/** How many of a capture's warnings a message quotes. */
const WARNINGS_QUOTED = 3;

export interface EmailMessage {
  subject: string;
  text: string;
  html: string;
  /** The picture the HTML shows as `cid:<cid>`, attached when the message is sent (read from storage then). */
  inline_image?: { screenshot_id: number; cid: string };
}

/** Around the inline picture in the HTML, so a message whose picture is gone by send time leaves it out. */
export const INLINE_IMAGE_MARKS = ['<!--inline-image-->', '<!--/inline-image-->'] as const;

/** How many changed text lines a message quotes, and how much of each. */
export const FIRST_LINES = 5;
const LINE_MAX = 200;

/** The headline and the body lines, the same words on every channel. */
export function summary(f: EventFacts): { title: string; lines: string[] } {
  const site = f.websiteName ?? 'A deleted website';
  const lines: string[] = [];
  let title: string;
  switch (f.event) {
    case 'screenshot.changed':
      title = `${site} changed`;
      if (f.changedRatio !== null) lines.push(`Pixels changed: ${percent(f.changedRatio)}`);
      if (f.textDiff) {
        lines.push(`Text: ${f.textDiff.added} line${f.textDiff.added === 1 ? '' : 's'} added, ${f.textDiff.removed} removed`);
        for (const line of f.textDiff.firstLines.slice(0, FIRST_LINES)) lines.push(clip(line, LINE_MAX));
      }
      break;
    case 'screenshot.succeeded':
      title = `${site}: screenshot taken`;
      break;
    case 'screenshot.failed':
      title = `${site}: screenshot failed`;
      break;
    case 'execution.succeeded':
      title = `${site}: scenario run succeeded`;
      break;
    case 'execution.failed':
      title = `${site}: scenario run failed`;
      break;
    case 'batch.completed': {
      const b = f.batch;
      title = `Batch ${b?.name ? `"${b.name}" ` : ''}finished`;
      if (b) lines.push(`${b.succeeded} of ${b.total} captured, ${b.failed} failed${b.cancelled > 0 ? `, ${b.cancelled} cancelled` : ''}`);
      break;
    }
    case CHANNEL_TEST_EVENT:
      title = 'Test notification from the screenshot service';
      lines.push('This channel works: the events you chose will arrive here.');
      lines.push(
        f.example
          ? `Example: the newest capture of ${f.example.websiteName ?? 'a deleted website'}, taken ${f.example.takenAt.toISOString().replace('.000Z', 'Z')}`
          : 'No capture yet: once one is taken, messages link its image, its comparison and its job.',
      );
      break;
    default:
      title = `${site}: ${f.event}`;
  }
  if (f.url) lines.unshift(`Page: ${f.url}`);
  for (const warning of (f.warnings ?? []).slice(0, WARNINGS_QUOTED)) lines.push(`Note: ${clip(warning, 300)}`);
  if (f.error) lines.push(`Error: ${clip(f.error, 500)}`);
  return { title, lines };
}

function links(f: EventFacts): Array<{ label: string; url: string }> {
  const all: Array<[string, string | null]> = [
    ['Compare', f.links.compare],
    ['Screenshot', f.links.screenshot],
    ['Image', f.links.image],
    ['Diff', f.links.diff ?? null],
    ['Job', f.links.job],
    ['Alerts settings', f.links.alerts ?? null],
  ];
  return all.flatMap(([label, url]) => (url ? [{ label, url }] : []));
}

/** The body a channel's delivery carries (fixed at emit time, sent as it is on every attempt). */
export function renderMessage(type: ChannelType, facts: EventFacts): string {
  switch (type) {
    case 'slack':
      return JSON.stringify(slackMessage(facts));
    case 'discord':
      return JSON.stringify(discordMessage(facts));
    case 'teams':
      return JSON.stringify(teamsMessage(facts));
    case 'ntfy':
      return JSON.stringify(ntfyMessage(facts));
    case 'email':
      return JSON.stringify(emailMessage(facts));
  }
}

/** Slack: `text` is the notification's fallback; one section with the details, one with the links. */
export function slackMessage(f: EventFacts): { text: string; blocks: unknown[] } {
  const { title, lines } = summary(f);
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const blocks: unknown[] = [{ type: 'section', text: { type: 'mrkdwn', text: clip([`*${esc(title)}*`, ...lines.map(esc)].join('\n'), 2900) } }];
  const linked = links(f);
  if (linked.length > 0) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: linked.map((l) => `<${l.url}|${l.label}>`).join(' · ') }] });
  return { text: clip(title, 3000), blocks };
}

/** Discord: `content` is the headline; one embed with the details; mentions never ping anyone (a site named @everyone). */
export function discordMessage(f: EventFacts): { content: string; embeds: unknown[]; allowed_mentions: { parse: string[] } } {
  const { title, lines } = summary(f);
  const linked = links(f);
  const description = [...lines, ...(linked.length > 0 ? [linked.map((l) => `[${l.label}](${l.url})`).join(' · ')] : [])].join('\n');
  const failed = f.event.endsWith('.failed');
  const embed: Record<string, unknown> = { title: clip(title, 256), description: clip(description, 4000), color: failed ? 0xd93025 : 0x1a73e8 };
  if (f.links.compare ?? f.links.screenshot) embed.url = f.links.compare ?? f.links.screenshot;
  return { content: clip(title, 2000), embeds: [embed], allowed_mentions: { parse: [] } };
}

/**
 * Microsoft Teams (a Workflows webhook): a message with one Adaptive Card — the headline, the details, the
 * picture (when its link is https: Teams fetches it) and a button per link.
 */
export function teamsMessage(f: EventFacts): { type: 'message'; attachments: unknown[] } {
  const { title, lines } = summary(f);
  const failed = f.event.endsWith('.failed');
  // Adaptive Cards read a little Markdown: a line starting "- " or "+ " (a changed text line) would become a bullet.
  const plain = (line: string) => line.replace(/^([-+*]) /, (_m, sign: string) => `${sign === '-' ? '−' : sign === '+' ? '＋' : '∗'} `);
  const body: unknown[] = [
    { type: 'TextBlock', text: clip(title, 300), weight: 'Bolder', size: 'Medium', wrap: true, ...(failed ? { color: 'Attention' } : {}) },
    ...lines.map((line) => ({ type: 'TextBlock', text: clip(plain(line), 1000), wrap: true, spacing: 'Small' })),
  ];
  if (f.links.image?.startsWith('https://')) body.push({ type: 'Image', url: f.links.image, altText: 'The screenshot', size: 'Stretch' });
  const card = {
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    type: 'AdaptiveCard',
    version: '1.4',
    body,
    actions: links(f).map((l) => ({ type: 'Action.OpenUrl', title: l.label, url: l.url })),
  };
  return { type: 'message', attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: card }] };
}

/** What an ntfy delivery holds: the headers (Title, Click, Tags, …) and the text body, POSTed to the topic's URL. */
export interface NtfyMessage {
  headers: Record<string, string>;
  body: string;
}

/**
 * ntfy: the details as the body; the headline as `Title`, the compare page (else the screenshot, else the job) as
 * `Click`, the kind of event as `Tags` (emoji names), a failure at priority 4, up to 3 links as `Actions` and the
 * picture as `Attach`. Header values are ASCII: other text is RFC 2047-encoded, which ntfy decodes.
 */
export function ntfyMessage(f: EventFacts): NtfyMessage {
  const { title, lines } = summary(f);
  const failed = f.event.endsWith('.failed');
  const tags = failed ? ['warning'] : f.event === 'screenshot.changed' ? ['mag'] : f.event === CHANNEL_TEST_EVENT ? ['bell'] : ['camera'];
  const headers: Record<string, string> = { title: headerText(clip(title, 250)), tags: tags.join(','), 'content-type': 'text/plain; charset=utf-8' };
  const click = f.links.compare ?? f.links.screenshot ?? f.links.job;
  if (click) headers.click = click;
  if (failed) headers.priority = '4';
  const actions = links(f)
    .filter((l) => !/[,;"]/.test(l.url))
    .slice(0, 3)
    .map((l) => `view, ${l.label}, ${l.url}`);
  if (actions.length > 0) headers.actions = actions.join('; ');
  if (f.links.image) headers.attach = f.links.image;
  return { headers, body: clip(lines.join('\n') || title, 3500) };
}

/** A header value as ntfy reads it: ASCII as it is, anything else as an RFC 2047 encoded word (UTF-8, base64). */
function headerText(s: string): string {
  return /^[\x20-\x7e]*$/.test(s) ? s : `=?UTF-8?B?${Buffer.from(s, 'utf8').toString('base64')}?=`;
}

/** The inline picture's Content-ID: the screenshot's id, in a domain of its own. */
export function inlineImageCid(screenshotId: number): string {
  return `screenshot-${screenshotId}@screenshot-service`;
}

export function emailMessage(f: EventFacts): EmailMessage {
  const { title, lines } = summary(f);
  const linked = links(f);
  const text = [title, '', ...lines, '', ...linked.map((l) => `${l.label}: ${l.url}`)].join('\n').trim() + '\n';
  // The picture travels with the message (mail clients show a cid: image without loading anything); a click
  // opens the full image through its signed link.
  const inline = f.inlineImage != null ? inlineImageCid(f.inlineImage) : null;
  const picture =
    inline !== null
      ? `${INLINE_IMAGE_MARKS[0]}<p>${f.links.image ? `<a href="${escapeHtml(f.links.image)}">` : ''}<img src="cid:${escapeHtml(inline)}" alt="The screenshot" width="600" style="max-width:100%;height:auto;border:1px solid #ddd">${f.links.image ? '</a>' : ''}</p>${INLINE_IMAGE_MARKS[1]}`
      : '';
  const html =
    `<!doctype html><html><body style="font-family:sans-serif">` +
    `<h2 style="font-size:18px">${escapeHtml(title)}</h2>` +
    lines.map((l) => `<p style="margin:4px 0">${escapeHtml(l)}</p>`).join('') +
    picture +
    (linked.length > 0 ? `<p>${linked.map((l) => `<a href="${escapeHtml(l.url)}">${escapeHtml(l.label)}</a>`).join(' · ')}</p>` : '') +
    `</body></html>`;
  return { subject: clip(title, 200), text, html, ...(inline !== null ? { inline_image: { screenshot_id: f.inlineImage!, cid: inline } } : {}) };
}

/** The HTML without its inline picture (the screenshot was deleted before the message went out). */
export function withoutInlineImage(html: string): string {
  const start = html.indexOf(INLINE_IMAGE_MARKS[0]);
  const end = html.indexOf(INLINE_IMAGE_MARKS[1]);
  return start >= 0 && end > start ? html.slice(0, start) + html.slice(end + INLINE_IMAGE_MARKS[1].length) : html;
}

export function percent(ratio: number): string {
  return `${(ratio * 100).toFixed(2)} %`;
}

function clip(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
