/** The message of anything thrown, for logs (never for clients: it may name paths, hosts or SQL). */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
