/**
 * `npm run bench:fairness`: docs/fair-slots.md measured with real Chromium, embedded and scaled (two worker
 * processes on PostgreSQL + Redis; 6 capture slots in all either way). Account B asks for one capture and
 * long-polls it (`?wait=30`), on an idle service (median of 3), then right after account A queued 60 captures;
 * the difference is what A's backlog costs B (the bound: < 2 s). Also A's peak of simultaneous captures
 * (its plan's cap: 4). Needs `npm run build` (the scaled workers run dist/main.js).
 */
import { median, peakRunning, queueCapture, settled, startFairRig, waitedCapture } from '../test/support/fairness';

async function run(mode: 'embedded' | 'scaled'): Promise<void> {
  const rig = await startFairRig(mode);
  try {
    const a = await rig.account('A');
    const b = await rig.account('B');
    await waitedCapture(rig.url, b.account, b.websiteId);
    const idle: number[] = [];
    for (let i = 0; i < 3; i++) idle.push(await waitedCapture(rig.url, b.account, b.websiteId));
    const peak = peakRunning(rig, a.account.id);
    for (let i = 0; i < 60; i++) await queueCapture(rig.url, a.account, a.websiteId);
    const behind = await waitedCapture(rig.url, b.account, b.websiteId);
    const left = await rig.unfinished(a.account.id);
    await settled(rig, [a.account.id]);
    const aPeak = await peak.stop();
    const added = behind - median(idle);
    process.stdout.write(
      `${mode.padEnd(8)} B idle p50 ${median(idle).toFixed(0)} ms | behind A's 60: ${behind.toFixed(0)} ms (A had ${left} unfinished) | added ${added.toFixed(0)} ms ${added < 2000 ? '< 2 s ✓' : '≥ 2 s ✗'} | A's peak ${aPeak} at once (cap 4)\n`,
    );
  } finally {
    await rig.close();
  }
}

void (async () => {
  for (const mode of ['embedded', 'scaled'] as const) await run(mode);
  process.exit(0);
})().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
