/**
 * Real proxy servers from npm for the proxy tests (no fakes): an HTTP proxy (`proxy-chain`, with Basic
 * credentials) and a SOCKS5 server (`simple-socks`, with username/password), each recording what it was asked to
 * reach, so a test sees the requests at the proxy.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface RunningProxy {
  /** The proxy's URL, credentials included when it has some. */
  url: string;
  port: number;
  /** What the proxy was asked for: `host:port` of tunnels, full URLs of plain-HTTP requests. */
  readonly seen: string[];
  /** Requests refused for wrong or missing credentials. */
  readonly refused: number;
  stop(): Promise<void>;
}

/**
 * Runs an ES module (both packages are ESM only, which jest's CommonJS runtime cannot load) in a child process. It
 * prints `port N` once listening, then `seen <what>` per request it carries and `refused` per bad credentials.
 */
async function spawnProxy(script: string, scheme: 'http' | 'socks5', credentials?: { username: string; password: string }): Promise<RunningProxy> {
  const child: ChildProcess = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
  const seen: string[] = [];
  let refused = 0;
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the ${scheme} proxy exited with ${code}`)));
    lines.on('line', (line) => {
      if (line.startsWith('port ')) resolve(Number(line.slice(5)));
      else if (line.startsWith('seen ')) seen.push(line.slice(5));
      else if (line === 'refused') refused++;
    });
  });
  const auth = credentials ? `${encodeURIComponent(credentials.username)}:${encodeURIComponent(credentials.password)}@` : '';
  return {
    url: `${scheme}://${auth}127.0.0.1:${port}`,
    port,
    seen,
    get refused() {
      return refused;
    },
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** proxy-chain on 127.0.0.1, requiring Basic `username:password` when given. */
export function startHttpProxy(credentials?: { username: string; password: string }): Promise<RunningProxy> {
  const script = `
    import { Server } from 'proxy-chain';
    const creds = ${JSON.stringify(credentials ?? null)};
    const server = new Server({
      port: 0, host: '127.0.0.1', verbose: false,
      prepareRequestFunction: ({ username, password, hostname, port, isHttp, request }) => {
        if (creds && (username !== creds.username || password !== creds.password)) {
          console.log('refused');
          return { requestAuthentication: true, failMsg: 'Bad credentials' };
        }
        console.log('seen ' + (isHttp ? request.url : hostname + ':' + port));
        return {};
      },
    });
    await server.listen();
    console.log('port ' + server.port);
  `;
  return spawnProxy(script, 'http', credentials);
}

/** simple-socks on 127.0.0.1, requiring username/password when given. */
export function startSocksProxy(credentials?: { username: string; password: string }): Promise<RunningProxy> {
  const script = `
    import socks5 from 'simple-socks';
    const creds = ${JSON.stringify(credentials ?? null)};
    const options = creds ? { authenticate(u, p, _s, cb) { if (u === creds.username && p === creds.password) cb(); else cb(new Error('bad credentials')); } } : {};
    const server = socks5.createServer(options);
    server.on('proxyConnect', (info) => console.log('seen ' + info.address + ':' + info.port));
    server.on('authenticateError', () => console.log('refused'));
    server.listen(0, '127.0.0.1', () => console.log('port ' + server.address().port));
  `;
  return spawnProxy(script, 'socks5', credentials);
}

/** A port nothing listens on (a dead proxy): taken from the OS, then released. */
export async function deadPort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
