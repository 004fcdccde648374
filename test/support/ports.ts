import { createServer } from 'node:net';

/**
 * Ports for the servers a test stops and starts again on the same port (s3rver, redis-server): the service under
 * test holds the address, so a restart must get the port back. Linux hands out ephemeral ports from 32768 up
 * (ip_local_port_range) to listen(0) and to every outgoing connection, so a port taken from there can be given to
 * the service's connection to PostgreSQL while the server is down, and the restart finds it taken. These ports are
 * picked below that range, where only an explicit bind lands.
 */
const RANGE = { from: 20_000, to: 32_767 };

export async function restartablePort(): Promise<number> {
  for (let tries = 0; tries < 50; tries++) {
    const port = RANGE.from + Math.floor(Math.random() * (RANGE.to - RANGE.from));
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port between ${RANGE.from} and ${RANGE.to}`);
}

/** Waits until nothing holds `port` (a killed server's socket is gone at once; this guards anything else). */
export async function untilBindable(port: number, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await bindable(port))) {
    if (Date.now() > deadline) throw new Error(`port ${port} still taken after ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
