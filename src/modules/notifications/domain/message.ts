/**
 * What a notification says, and how each channel type carries it: Slack `{text, blocks}`, Discord
 * `{content, embeds}`, e-mail subject + text + simple HTML. Plain functions of the facts of one event.
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
  links: { compare: string | null; screenshot: string | null; image: string | null; job: string | null };
  /** batch.completed: the batch's name and counts. */
  batch?: { name: string | null; total: number; succeeded: number; failed: number; cancelled: number } | null;
}

/** How many of a capture's warnings a message quotes. */
const WARNINGS_QUOTED = 3;

export interface EmailMessage {
  subject: string;
  text: string;
  html: string;
}

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
    ['Job', f.links.job],
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

export function emailMessage(f: EventFacts): EmailMessage {
  const { title, lines } = summary(f);
  const linked = links(f);
  const text = [title, '', ...lines, '', ...linked.map((l) => `${l.label}: ${l.url}`)].join('\n').trim() + '\n';
  const html =
    `<!doctype html><html><body style="font-family:sans-serif">` +
    `<h2 style="font-size:18px">${escapeHtml(title)}</h2>` +
    lines.map((l) => `<p style="margin:4px 0">${escapeHtml(l)}</p>`).join('') +
    (f.links.image
      ? `<p><a href="${escapeHtml(f.links.image)}"><img src="${escapeHtml(f.links.image)}" alt="The screenshot" style="max-width:100%"></a></p>`
      : '') +
    (linked.length > 0 ? `<p>${linked.map((l) => `<a href="${escapeHtml(l.url)}">${escapeHtml(l.label)}</a>`).join(' · ')}</p>` : '') +
    `</body></html>`;
  return { subject: clip(title, 200), text, html };
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
