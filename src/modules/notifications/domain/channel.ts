/**
 * Notification channels (API.md "Notification channels"): an e-mail address, a Slack or Discord incoming webhook,
 * a Microsoft Teams workflow webhook or an ntfy topic, subscribed to some of the webhook events, for every website
 * of the account or a few. Plain rules.
 */
import { REDACTED } from '../../../shared/domain/capture-secrets';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../../webhooks/domain/webhook';

export const CHANNEL_TYPES = ['email', 'slack', 'discord', 'teams', 'ntfy'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];
export const CHANNEL_EVENTS = WEBHOOK_EVENTS;
export type ChannelEvent = WebhookEvent;
/** Sent by POST /notification-channels/{id}/test only. */
export const CHANNEL_TEST_EVENT = 'notification.test';

export const CHANNEL_LIMITS = { nameMax: 255, targetMax: 2048, perAccount: 20, websiteIdsMax: 100 } as const;

/** The channel types whose target is a chat service's incoming webhook, on hosts of that service only. */
type HookType = 'slack' | 'discord';

/** The hosts that serve incoming webhooks; any other needs its origin in URL_ALLOWLIST (a self-hosted Mattermost…). */
export const WEBHOOK_HOSTS: Record<HookType, readonly string[]> = {
  slack: ['hooks.slack.com'],
  discord: ['discord.com', 'discordapp.com', 'ptb.discord.com', 'canary.discord.com'],
};

/** Where on those hosts incoming webhooks live: a target's normalised path must start with it (and go on). */
export const WEBHOOK_PATH_PREFIXES: Record<HookType, string> = {
  slack: '/services/',
  discord: '/api/webhooks/',
};

/**
 * Microsoft Teams workflow webhooks (Power Automate "When a Teams webhook request is received", and the older
 * Office 365 connectors): a subdomain of one of these domains (`prod-12.westus.logic.azure.com`,
 * `default1234.ab.environment.api.powerplatform.com`, `contoso.webhook.office.com`), and the path the service
 * gives such a webhook.
 */
export const TEAMS_HOSTS: ReadonlyArray<{ domain: string; pathPrefix: string }> = [
  { domain: 'logic.azure.com', pathPrefix: '/workflows/' },
  { domain: 'powerplatform.com', pathPrefix: '/powerautomate/' },
  { domain: 'webhook.office.com', pathPrefix: '/webhookb2/' },
];

/** An ntfy topic: what ntfy itself accepts (letters, digits, `-` and `_`, up to 64). */
const NTFY_TOPIC = /^[-_A-Za-z0-9]{1,64}$/;

/**
 * Whether a webhook URL as written hides a path trick: a `.` or `..` segment, an encoded dot, slash or backslash,
 * a backslash (parsers read it as `/`), a control character or a space (stripped or kept by parsers alike).
 * Such a URL could resolve past the prefix it seems to start with (`/api/webhooks/../other`); the parsed path is
 * checked against the prefix too.
 */
function pathTrick(target: string): boolean {
  for (let i = 0; i < target.length; i++) if (target.charCodeAt(i) <= 0x20 || target.charCodeAt(i) === 0x7f) return true;
  const beforeQuery = target.split(/[?#]/)[0];
  if (/%2e|%2f|%5c|\\/i.test(beforeQuery)) return true;
  return beforeQuery.split('/').some((segment) => segment === '.' || segment === '..');
}

export interface ChannelProps {
  id: number;
  accountId: number;
  name: string;
  type: ChannelType;
  /** The e-mail address, or the incoming-webhook URL (a credential: sealed at rest, masked when shown). */
  target: string;
  events: ChannelEvent[];
  /** Only these websites' events; null: every website. */
  websiteIds: number[] | null;
  enabled: boolean;
  /** Since when every delivery has failed (null: the last one succeeded); 3 days of it disable the channel. */
  failingSince: Date | null;
  /** Why the service disabled it (webhooks' FAILING_DISABLED_REASON), and when; null once re-enabled. */
  disabledReason: string | null;
  disabledAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The newest message queued for a channel and how it went, as its list shows it. */
export interface LastDelivery {
  eventType: string;
  status: 'pending' | 'succeeded' | 'failed';
  error: string | null;
  at: Date | null;
}

/** Whether the channel is told about an event: subscribed, for its website, and created before it happened. */
export function wants(channel: ChannelProps, event: string, websiteId: number | null, happenedAt: Date): boolean {
  if (!channel.enabled || channel.createdAt.getTime() > happenedAt.getTime()) return false;
  if (!(channel.events as string[]).includes(event)) return false;
  return channel.websiteIds === null || (websiteId !== null && channel.websiteIds.includes(websiteId));
}

/**
 * What GET shows of a target: an e-mail address as it is; a webhook URL with its scheme and host only, the path
 * (the secret part: `/services/T…/B…/xyz`, `/api/webhooks/<id>/<token>`) masked.
 */
export function maskedTarget(type: ChannelType, target: string): string {
  if (type === 'email') return target;
  try {
    const url = new URL(target);
    return `${url.protocol}//${url.host}/${REDACTED}`;
  } catch {
    return REDACTED;
  }
}

// Deliberately simple (the SMTP server is the judge): one @, no spaces or angle brackets, a dotted or local domain.
const EMAIL = /^[^\s@<>()",;]+@[^\s@<>()",;]+$/;

/** Why an e-mail target is refused; null when it is fine. */
export function emailProblem(target: string): string | null {
  if (!EMAIL.test(target)) return 'target must be an e-mail address like ops@example.com';
  return null;
}

/** Why a webhook target's URL (Slack, Discord, Teams, ntfy) is refused before the URL policy; null when it is fine. */
export function webhookUrlProblem(type: Exclude<ChannelType, 'email'>, target: string, allowlist: readonly string[]): string | null {
  if (type === 'teams') return teamsUrlProblem(target, allowlist);
  if (type === 'ntfy') return ntfyUrlProblem(target);
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return `target must be the ${label(type)} incoming-webhook URL`;
  }
  if (allowlist.includes(url.origin)) return null;
  const prefix = WEBHOOK_PATH_PREFIXES[type];
  const expected = `target must be a ${label(type)} incoming-webhook URL (https://${WEBHOOK_HOSTS[type][0]}${prefix}…)`;
  // https, one of the hosts exactly (no trailing dot, no other port than 443, no credentials), and the webhooks'
  // path: checked on the parsed (normalised) path, and the path as written must hold no trick that resolves away.
  if (url.protocol !== 'https:' || !WEBHOOK_HOSTS[type].includes(url.hostname) || url.port !== '') return expected;
  if (url.username !== '' || url.password !== '') return expected;
  if (pathTrick(target) || !url.pathname.startsWith(prefix) || url.pathname.length === prefix.length) return expected;
  return null;
}

function label(type: HookType): string {
  return type === 'slack' ? 'Slack' : 'Discord';
}

/**
 * A Teams target: https, a subdomain of one of TEAMS_HOSTS' domains (no trailing dot, port 443, no credentials),
 * with that domain's path once normalised, and no path trick as written. Another origin only when allowlisted.
 */
function teamsUrlProblem(target: string, allowlist: readonly string[]): string | null {
  const expected =
    'target must be a Microsoft Teams workflow webhook URL (https://….logic.azure.com/workflows/…, https://….powerplatform.com/powerautomate/… or https://….webhook.office.com/webhookb2/…)';
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return expected;
  }
  if (allowlist.includes(url.origin)) return null;
  if (url.protocol !== 'https:' || url.port !== '' || url.username !== '' || url.password !== '') return expected;
  const host = TEAMS_HOSTS.find((h) => url.hostname.endsWith(`.${h.domain}`) && url.hostname.length > h.domain.length + 1);
  if (!host || pathTrick(target) || !url.pathname.startsWith(host.pathPrefix) || url.pathname.length === host.pathPrefix.length) return expected;
  return null;
}

/**
 * An ntfy target: `https://ntfy.sh/<topic>` or a self-hosted server's URL ending in the topic (http or https; the
 * URL policy judges the address as for every webhook), no credentials in the URL (ntfy takes `?auth=` for a
 * protected topic), no path trick.
 */
function ntfyUrlProblem(target: string): string | null {
  const expected = 'target must be an ntfy topic URL like https://ntfy.sh/my-alerts (letters, digits, - and _)';
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return expected;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return expected;
  if (url.username !== '' || url.password !== '' || url.hash !== '' || pathTrick(target)) return expected;
  const topic = url.pathname.split('/').at(-1) ?? '';
  return NTFY_TOPIC.test(topic) ? null : expected;
}
