/** What an alert link opens (issue 46): a screenshot's image, its diff with the capture before, or the read-only compare page. */
export const ALERT_LINK_VIEWS = ['image', 'diff', 'compare'] as const;
export type AlertLinkView = (typeof ALERT_LINK_VIEWS)[number];
