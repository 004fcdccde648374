/**
 * A job's error as the dashboard shows it: the sentence of the one failure table (shared/domain/failure-words.ts,
 * which the API's `error` uses too), and the raw text as the service recorded it, in small print beside it — a
 * person can still search for it or quote it to support.
 */
import { failureWords } from '../../../../shared/domain/failure-words';

export interface ReadableError {
  /** The sentence shown to people. */
  text: string;
  /** The raw error as the service recorded it; null when the sentence is the raw text (nothing to translate). */
  raw: string | null;
}

/** The sentence for an error text; `raw` is set whenever the sentence differs from it. */
export function readableError(error: string): ReadableError {
  const words = failureWords(error);
  return { text: words.text, raw: words.text === error ? null : error };
}
