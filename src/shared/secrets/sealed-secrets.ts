import { CaptureSecrets, hasSecrets } from '../domain/capture-secrets';
import { SecretBox } from './secret-box';

/**
 * A request's capture secrets as a job row holds them: sealed (a fresh IV each seal) beside a keyed digest, so two
 * requests with the same secrets compare equal (idempotency, the render cache key) while nothing readable is
 * stored. Nothing when the request has no secrets.
 */
export function sealedSecrets(box: SecretBox, secrets: CaptureSecrets | undefined): { sealedSecrets?: string; secretsDigest?: string } {
  if (!hasSecrets(secrets)) return {};
  const plain = JSON.stringify(secrets);
  return { sealedSecrets: box.seal(plain), secretsDigest: box.digest(plain) };
}
