/**
 * Whether a capture's failure is its time limit running out (a render answers 504 `capture_timeout`) rather than the
 * page refusing or failing (502 `capture_failed`). The capture's messages say so in words: "The page did not answer
 * within 30 s", "Timed out after 5000 ms waiting for selector …", "Page did not finish rendering within 30000 ms".
 */
export function isCaptureTimeout(message: string): boolean {
  return /timeout|timed out|\bwithin \d/i.test(message);
}

/** A page that never answered within its time limit, in words: "The page did not answer within 30 s" (or 1.5 s). */
export function notAnsweredMessage(timeoutMs: number): string {
  return `The page did not answer within ${Math.round(timeoutMs / 100) / 10} s`;
}
