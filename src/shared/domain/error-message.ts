/** The message of anything thrown, for logs (never for clients: it may name paths, hosts or SQL). */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** What was thrown, as an Error (a rejection should always carry one; some libraries throw strings). */
export function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
