/** Read by AppConfig here, not in shared/secrets: config imports nothing above the shared kernel. */

/** SECRETS_KEY: 32 bytes as 64 hex characters or base64. */
export function parseSecretsKey(raw: string): Buffer | null {
  const value = raw.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  return key.length === 32 ? key : null;
}
