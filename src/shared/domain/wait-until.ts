/**
 * When a capture is taken (API.md, Capture options: `wait_until`). One list shared by the request and
 * website validation, the stored rows and the capturer.
 * - stable: after `load`, as soon as the page has settled (no request in flight, no short timer pending,
 *   no DOM change, fonts and images ready) for a short window; capped for pages that never settle.
 * - load / domcontentloaded: at that event, nothing more.
 * - network_idle: after `load`, once the network has been quiet for 500 ms (the behaviour before `stable`).
 */
export const WAIT_UNTIL_VALUES = ['stable', 'load', 'domcontentloaded', 'network_idle'] as const;
export type WaitUntil = (typeof WAIT_UNTIL_VALUES)[number];
export const DEFAULT_WAIT_UNTIL: WaitUntil = 'stable';
