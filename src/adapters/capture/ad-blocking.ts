/**
 * block_ads / block_trackers: requests to known advertising and analytics hosts are aborted before they leave the
 * browser. The list is Ghostery's tracker database (`@ghostery/trackerdb`): a prebuilt `@ghostery/adblocker`
 * engine shipped in the npm package (nothing is downloaded), whose every filter belongs to a pattern with a
 * category — so one engine answers both questions, "is this an ad?" and "is this a tracker?".
 *
 * Network filters only: an ad slot whose content never loads stays as the page laid it out (usually empty).
 * Mind the database's licence (CC BY-NC-SA 4.0) for commercial deployments: see docs/capture-options.md.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

import loadTrackerDB from '@ghostery/trackerdb';

/** Which trackerdb categories each option blocks. */
export const BLOCKED_CATEGORIES = {
  ads: ['advertising', 'pornvertising'],
  trackers: ['site_analytics'],
  chatWidgets: ['customer_interaction'],
} as const;

/**
 * customer_interaction ("chat widgets, customer support, e-commerce/content personalization and other interaction
 * tools") also holds payments, maps, log-in and search services a page needs: block_chat_widgets blocks only its
 * services whose name or owner's description speaks of chat, messaging or a help desk (Intercom, Drift, Crisp,
 * Tawk, Zendesk, LiveChat, Tidio, Freshchat, … — 73 of its 369), and the widgets named in CHAT_WIDGET_PATTERNS whose
 * descriptions do not say so.
 */
const CHAT_WIDGET = /chat|messag|help ?desk|live (support|help|agent)/i;
/** Chat widgets the database describes otherwise (Drift: "Salesloft is a sales engagement platform"). */
const CHAT_WIDGET_PATTERNS = new Set(['drift']);

export interface BlockingChoice {
  blockAds?: boolean;
  blockTrackers?: boolean;
  blockChatWidgets?: boolean;
}

type TrackerDb = Awaited<ReturnType<typeof loadTrackerDB>>;
type EngineRequestType = NonNullable<Parameters<TrackerDb['matchUrl']>[0]['type']>;
let trackerDb: Promise<TrackerDb> | null = null;

/** Loaded on first use (~10 ms, ~50 MB): most captures never ask for it. */
function database(): Promise<TrackerDb> {
  // The package's exports map names its entry, not the engine file beside it: find the dist folder from the entry.
  const dist = join(dirname(require.resolve('@ghostery/trackerdb')), '..');
  trackerDb ??= loadTrackerDB(readFileSync(join(dist, 'trackerdb.engine')));
  return trackerDb;
}

/** The request matcher for a capture's choice, or null when it blocks nothing (no interception needed then). */
export async function requestBlocker(choice: BlockingChoice): Promise<RequestBlocker | null> {
  const categories = new Set<string>([
    ...(choice.blockAds ? BLOCKED_CATEGORIES.ads : []),
    ...(choice.blockTrackers ? BLOCKED_CATEGORIES.trackers : []),
    ...(choice.blockChatWidgets ? BLOCKED_CATEGORIES.chatWidgets : []),
  ]);
  if (categories.size === 0) return null;
  return new RequestBlocker(await database(), categories);
}

export class RequestBlocker {
  constructor(
    private readonly db: TrackerDb,
    private readonly categories: ReadonlySet<string>,
  ) {}

  /**
   * Whether a request belongs to a blocked category. `type` is puppeteer's resource type; `sourceUrl` the
   * document that makes it (filters marked third-party only match across sites).
   */
  blocks(url: string, type: string, sourceUrl: string): boolean {
    if (!url.startsWith('http:') && !url.startsWith('https:') && !url.startsWith('ws')) return false;
    const matches = this.db.matchUrl({ url, type: ENGINE_TYPES[type] ?? 'other', sourceUrl }, { getDomainMetadata: true });
    return matches.some(
      (match) => match.category !== null && this.categories.has(match.category.key) && (match.category.key !== 'customer_interaction' || isChatWidget(match)),
    );
  }
}

type Match = ReturnType<TrackerDb['matchUrl']>[number];

function isChatWidget(match: Match): boolean {
  if (CHAT_WIDGET_PATTERNS.has(match.pattern?.key ?? '')) return true;
  return CHAT_WIDGET.test(`${match.pattern?.key ?? ''} ${match.pattern?.name ?? ''} ${match.organization?.description ?? ''}`);
}

/** Puppeteer's resource types in the engine's names (where they differ). */
const ENGINE_TYPES: Record<string, EngineRequestType> = {
  document: 'main_frame',
  stylesheet: 'stylesheet',
  image: 'image',
  media: 'media',
  font: 'font',
  script: 'script',
  xhr: 'xhr',
  fetch: 'xhr',
  websocket: 'websocket',
  eventsource: 'xhr',
  texttrack: 'other',
  manifest: 'other',
  ping: 'ping',
  sub_frame: 'sub_frame',
  other: 'other',
};
