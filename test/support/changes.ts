import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ScreenshotRepository } from '../../src/modules/screenshots/application/ports';

/**
 * Waits until a capture's comparison (change history) is no longer pending, reading the screenshots table — which
 * costs no API request, so no test spends its rate limit on it. Bounded: 20 s, then it throws.
 */
export async function waitForComparison(app: NestFastifyApplication, id: number): Promise<void> {
  const repository = app.get(ScreenshotRepository);
  for (const until = Date.now() + 20_000; Date.now() < until;) {
    const shot = await repository.findById(id);
    if (shot && shot.change?.status !== 'pending') return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`the comparison of screenshot ${id} did not finish within 20 s`);
}
