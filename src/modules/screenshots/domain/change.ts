/**
 * Visual change history (API.md, Change history): every image capture of a website is compared with the previous
 * capture of that website taken with comparable settings. The rules of what is comparable, of the ratio and of
 * what the API shows live here; the pixels are compared by the ImageDiffer port.
 */
import { createHash } from 'node:crypto';
import type { TextDiffCounts } from './text-change';

export const CHANGE_RULES = {
  /** `changed` = changed_ratio > threshold (the website's change_threshold). */
  threshold: { min: 0, max: 1, default: 0.001 },
  /** change_ignore_selectors: at most this many CSS selectors, each at most selectorMax characters. */
  ignoreSelectorsMax: 50,
  selectorMax: 500,
} as const;

/** A rectangle in the image's own pixels: [x, y, width, height]. */
export type Box = [number, number, number, number];

/**
 * The settings that decide whether two captures can be compared: a different viewport, scale factor, device,
 * full_page, element selector or clip shows a different picture of the same page. Image format, quality and the
 * like do not matter (any two image formats are compared pixel by pixel).
 */
export interface ComparableSettings {
  viewportWidth: number;
  viewportHeight: number;
  deviceScaleFactor: number;
  device: string | null;
  fullPage: boolean;
  selector: string | null;
  clip: { x: number; y: number; width: number; height: number } | null;
}

/** A value that means "option not used" (absent, off, empty): it leaves the key as it was before the option existed. */
function isUnused(value: unknown): boolean {
  return value === undefined || value === null || value === false || value === '' || (Array.isArray(value) && value.length === 0);
}

/**
 * A fixed-size digest of the settings, stored on the screenshot (compare_key) and matched by equality ("like for
 * like"). `picture` holds the other options that change the picture (hide_selectors, css, blocking, dark mode…,
 * by wire name; application/comparison-key.ts lists them): the options in use are added to the key, so a one-off
 * capture with hide_selectors starts a history of its own. Options not in use add nothing, so the key of a plain
 * capture is the key it had before these options counted, and existing histories go on.
 */
export function compareKey(s: ComparableSettings, picture: Readonly<Record<string, unknown>> = {}): string {
  const settings: unknown[] = [
    s.viewportWidth,
    s.viewportHeight,
    s.deviceScaleFactor,
    s.device,
    s.fullPage,
    s.selector,
    s.clip && [s.clip.x, s.clip.y, s.clip.width, s.clip.height],
  ];
  const used = Object.keys(picture)
    .filter((name) => !isUnused(picture[name]))
    .sort()
    .map((name) => [name, picture[name]]);
  const canonical = JSON.stringify(used.length ? [...settings, used] : settings);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 32);
}

/** The comparison as stored on the newer screenshot. */
export interface ChangeRecord {
  /** The capture this one was compared with; it may have been deleted since (the comparison stays readable). */
  previousId: number;
  status: 'pending' | 'done';
  changedRatio: number | null;
  /** Pixels over the threshold OR the visible text changed (text-change.ts: isChangeOverall). */
  changed: boolean | null;
  comparedAt: Date | null;
  /** Lines added/removed in the visible text; null when either capture kept no text (PDFs, rows from before). */
  textDiff: TextDiffCounts | null;
}

/** The Screenshot resource's `change`: null (nothing to compare with), pending, or the result. */
export type ChangeView =
  | null
  | { previous_id: number; status: 'pending' }
  | {
      previous_id: number;
      changed_ratio: number;
      changed: boolean;
      compared_at: string;
      text_changed: boolean;
      text_diff: TextDiffCounts | null;
    };

export function changeView(change: ChangeRecord | null): ChangeView {
  if (!change) return null;
  if (change.status === 'pending' || change.changedRatio === null || change.comparedAt === null) return { previous_id: change.previousId, status: 'pending' };
  return {
    previous_id: change.previousId,
    changed_ratio: change.changedRatio,
    changed: change.changed === true,
    compared_at: change.comparedAt.toISOString(),
    text_changed: change.textDiff !== null && (change.textDiff.added > 0 || change.textDiff.removed > 0),
    text_diff: change.textDiff && { added: change.textDiff.added, removed: change.textDiff.removed },
  };
}

/**
 * The share of pixels that differ, over the union of both images' areas: within the overlap the pixels the
 * differ counted, and every pixel outside it (a full page that grew or shrank) counts as changed. Rounded to
 * 6 decimals, so the API shows a stable number.
 */
export function changedRatio(m: { changedInOverlap: number; newer: { width: number; height: number }; older: { width: number; height: number } }): number {
  const width = Math.max(m.newer.width, m.older.width);
  const height = Math.max(m.newer.height, m.older.height);
  const union = width * height;
  const overlap = Math.min(m.newer.width, m.older.width) * Math.min(m.newer.height, m.older.height);
  if (union === 0) return 0;
  return Math.round(((m.changedInOverlap + (union - overlap)) / union) * 1e6) / 1e6;
}

export function isChanged(ratio: number, threshold: number): boolean {
  return ratio > threshold;
}

/** Boxes clipped to an image of this size; boxes wholly outside it are dropped. Whole pixels, rounded outward. */
export function clipBoxes(boxes: readonly Box[], width: number, height: number): Box[] {
  const clipped: Box[] = [];
  for (const [x, y, w, h] of boxes) {
    const left = Math.max(0, Math.floor(x));
    const top = Math.max(0, Math.floor(y));
    const right = Math.min(width, Math.ceil(x + w));
    const bottom = Math.min(height, Math.ceil(y + h));
    if (right > left && bottom > top) clipped.push([left, top, right - left, bottom - top]);
  }
  return clipped;
}

/** Boxes read back from storage (JSON); anything that is not a list of four finite numbers is dropped. */
export function parseBoxes(json: string | null): Box[] {
  if (!json) return [];
  try {
    const value: unknown = JSON.parse(json);
    if (!Array.isArray(value)) return [];
    return value.filter((b): b is Box => Array.isArray(b) && b.length === 4 && b.every((n) => typeof n === 'number' && Number.isFinite(n)));
  } catch {
    return [];
  }
}
