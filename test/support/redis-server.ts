import { ChildProcess, spawn } from 'node:child_process';
import { restartablePort, untilBindable } from './ports';

/**
 * A real redis-server of a test's own, on a port of its own and without persistence, so a test can stop,
 * freeze or restart it (empty) without disturbing the shared Redis other suites use.
 */

/** A port a test's redis-server can be stopped and started again on (see ports.ts). */
export const freePort = restartablePort;

export async function startRedis(port: number): Promise<ChildProcess> {
  await untilBindable(port, 10_000);
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${out}`)), 10_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (/Ready to accept connections/.test(out)) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.on('error', reject);
  });
}

export function stopRedis(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
