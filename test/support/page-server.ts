import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

export type Route = (req: IncomingMessage, res: ServerResponse) => void;

/** A local web server for captures: the pages a test renders in real Chromium. */
export class PageServer {
  private server!: Server;
  readonly requests: string[] = [];
  url = '';

  constructor(private readonly routes: Record<string, Route | string>) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.requests.push(req.url ?? '');
      const route = this.routes[(req.url ?? '/').split('?')[0]];
      if (route === undefined) {
        res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>not found</h1>');
      } else if (typeof route === 'string') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(route);
      } else {
        route(req, res);
      }
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export function solidPage(color: string, heightPx?: number): string {
  const height = heightPx ? `height:${heightPx}px;` : '';
  return `<!doctype html><html><head><style>html,body{margin:0;background:${color};${height}}</style></head><body><div style="${height}"></div></body></html>`;
}
