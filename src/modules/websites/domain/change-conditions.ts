/**
 * A website's change conditions (issue 46, item 3): `ignore_text` (regular expressions: matching lines are left out
 * of the text diff) and `alert_when` (`text_contains`, `text_missing`, `min_changed_ratio`, `text_only`) decide
 * whether a comparison is `changed` — and so whether `screenshot.changed` is emitted and channels are alerted.
 * Every rule of what counts is here; the comparison itself (pixels, text lines) is screenshots' ChangeDetector.
 *
 * The patterns are user input run on every line of every capture: they are compiled by RE2 (re2-wasm), whose
 * matching is linear in the line's length, so `(a+)+$` on a 1 MiB line costs what `a` does. Patterns RE2 refuses
 * (backreferences, lookaround) are refused at the edge with the reason.
 */
import { RE2 } from 're2-wasm';

export const CONDITION_RULES = {
  /** ignore_text: at most this many patterns, each 1..patternMax characters. */
  ignoreTextMax: 20,
  patternMax: 200,
  /** text_contains / text_missing: a phrase of 1..phraseMax characters. */
  phraseMax: 200,
} as const;

/** `alert_when` as stored and as the API shows it (snake_case: it is the wire shape, kept whole in one column). */
export interface AlertWhen {
  text_contains?: string;
  text_missing?: string;
  min_changed_ratio?: number;
  text_only?: boolean;
}

/** Why a pattern cannot be used (RE2's reason, without its noise); null when it compiles. */
export function patternProblem(pattern: string): string | null {
  if (pattern.length === 0) return 'must not be empty';
  if (pattern.length > CONDITION_RULES.patternMax) return `must be at most ${CONDITION_RULES.patternMax} characters`;
  try {
    new RE2(pattern, 'iu');
    return null;
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    // "Invalid regular expression: /(a)\1/iu: invalid escape sequence: \1" → "invalid escape sequence: \1"
    const why = reason.replace(/^Invalid regular expression: [\s\S]*\/iu: /, '');
    return `is not a regular expression this service can run (RE2 syntax: no backreferences or lookaround): ${why}`;
  }
}

/** Every ignore_text pattern that cannot be used, named as the API spells it (`ignore_text[2]`). */
export function ignoreTextProblems(patterns: readonly unknown[]): Array<{ field: string; message: string }> {
  const problems: Array<{ field: string; message: string }> = [];
  patterns.forEach((pattern, i) => {
    const problem = typeof pattern === 'string' ? patternProblem(pattern) : 'must be a string';
    if (problem) problems.push({ field: `ignore_text[${i}]`, message: `ignore_text[${i}] ${problem}` });
  });
  return problems;
}

/** Lines matching any of the patterns (case-insensitive, anywhere in the line): one RE2 for all of them. */
export class IgnoredLines {
  private readonly re: RE2 | null;

  constructor(patterns: readonly string[]) {
    this.re = patterns.length ? new RE2(patterns.map((p) => `(?:${p})`).join('|'), 'iu') : null;
  }

  /** The kept text (one line per line, ending in a newline) without the ignored lines. */
  strip(text: string): string {
    if (!this.re || !text) return text;
    const kept = text.split('\n').filter((line, i, all) => !(i === all.length - 1 && line === '') && !this.re!.test(line));
    return kept.length ? `${kept.join('\n')}\n` : '';
  }
}

/** Case and runs of spaces do not matter to a phrase (the kept text has its spaces collapsed already). */
function contains(text: string, phrase: string): boolean {
  const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLocaleLowerCase('en');
  return norm(text).includes(norm(phrase));
}

export interface ComparisonFacts {
  /** The share of pixels that differ (0..1). */
  changedRatio: number;
  /** The website's change_threshold: pixels count when changedRatio > it. */
  threshold: number;
  /** Both kept texts, before ignoring lines; null when either capture kept none (a PDF, a row from before). */
  texts: { older: string; newer: string } | null;
  /** Whether the whole texts (ignored lines included) differ. */
  rawTextChanged: boolean;
  /** Whether the texts without the ignored lines differ (the text diff's counts are made of those). */
  textChanged: boolean;
}

export interface ChangeVerdict {
  changed: boolean;
  /** Which rule said no, in words (logs; null when changed, or when nothing changed at all). */
  heldBack: string | null;
}

/**
 * The verdict. First, is there a change worth the name: the text changed outside the ignored lines, or the pixels
 * changed over the threshold — except with `text_only` (pixels alone never count), and except when the text's only
 * changes are ignored lines: then the pixel change is taken to be those lines (a clock drawn on the page) and counts
 * only when it reaches `min_changed_ratio` (when set). Then every condition of `alert_when` that is set must hold:
 * `min_changed_ratio` (changed_ratio ≥ it), `text_contains` (the phrase appears: in the new text, not in the old),
 * `text_missing` (the phrase disappears: in the old text, not in the new).
 */
export function decideChange(facts: ComparisonFacts, alertWhen: AlertWhen, ignored: IgnoredLines): ChangeVerdict {
  const min = alertWhen.min_changed_ratio;
  const onlyIgnoredLines = facts.rawTextChanged && !facts.textChanged;
  let pixels = facts.changedRatio > facts.threshold;
  if (alertWhen.text_only) pixels = false;
  else if (onlyIgnoredLines) pixels = min !== undefined && facts.changedRatio >= min;
  if (!pixels && !facts.textChanged) {
    return {
      changed: false,
      heldBack: onlyIgnoredLines
        ? 'only ignored lines changed'
        : alertWhen.text_only && facts.changedRatio > facts.threshold
          ? 'text_only: the text did not change'
          : null,
    };
  }
  if (min !== undefined && facts.changedRatio < min) return { changed: false, heldBack: `changed_ratio under min_changed_ratio ${min}` };
  const kept = facts.texts && { older: ignored.strip(facts.texts.older), newer: ignored.strip(facts.texts.newer) };
  if (alertWhen.text_contains !== undefined) {
    const appears = kept !== null && contains(kept.newer, alertWhen.text_contains) && !contains(kept.older, alertWhen.text_contains);
    if (!appears) return { changed: false, heldBack: 'text_contains: the phrase did not appear' };
  }
  if (alertWhen.text_missing !== undefined) {
    const disappears = kept !== null && contains(kept.older, alertWhen.text_missing) && !contains(kept.newer, alertWhen.text_missing);
    if (!disappears) return { changed: false, heldBack: 'text_missing: the phrase did not disappear' };
  }
  return { changed: true, heldBack: null };
}
