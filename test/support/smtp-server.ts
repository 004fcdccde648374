import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

/** One message as the SMTP server received and parsed it. */
export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  /** As sent: `cid:` references are kept (the parser would otherwise inline them as data: URLs). */
  html: string;
  /** Every attachment part, inline pictures included: its Content-ID (without <>), type, size and disposition. */
  attachments: Array<{ contentId: string | null; contentType: string; size: number; disposition: string | null; related: boolean; base64: string }>;
}

/**
 * The server's program: `smtp-server` (npm) on a free loopback port, without STARTTLS (its self-signed
 * certificate would fail the client's check), parsing each message with `mailparser` and printing it as one JSON
 * line. A line on stdin `fail N` makes it refuse the next N messages with a temporary 451.
 */
const PROGRAM = `
const { SMTPServer } = require('smtp-server');
const { simpleParser } = require('mailparser');
let failNext = 0;
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const m = /^fail (\\d+)$/.exec(line.trim());
  if (m) { failNext = Number(m[1]); process.stdout.write(JSON.stringify({ ack: line.trim() }) + '\\n'); }
});
const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, session, callback) {
    if (failNext > 0) {
      failNext--;
      stream.resume();
      stream.on('end', () => { const err = new Error('mailbox busy, try later'); err.responseCode = 451; callback(err); });
      return;
    }
    simpleParser(stream, { keepCidLinks: true }).then((mail) => {
      process.stdout.write(JSON.stringify({ mail: {
        from: session.envelope.mailFrom && session.envelope.mailFrom.address,
        to: session.envelope.rcptTo.map((r) => r.address),
        subject: mail.subject || '', text: mail.text || '', html: mail.html || '',
        attachments: (mail.attachments || []).map((a) => ({
          contentId: a.contentId ? a.contentId.replace(/^<|>$/g, '') : null, contentType: a.contentType, size: a.size,
          disposition: a.contentDisposition || null, related: Boolean(a.related), base64: a.content.toString('base64'),
        })),
      } }) + '\\n');
      callback();
    }, callback);
  },
});
server.listen(0, '127.0.0.1', () => process.stdout.write(JSON.stringify({ port: server.server.address().port }) + '\\n'));
`;

/** A real SMTP server in a process of its own, for tests of e-mail notifications. */
export class SmtpTestServer {
  readonly received: ReceivedMail[] = [];
  private proc: ChildProcess | null = null;
  private acks: string[] = [];
  port = 0;

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    const proc = spawn(process.execPath, ['-e', PROGRAM], { cwd: process.cwd(), stdio: ['pipe', 'pipe', 'inherit'] });
    this.proc = proc;
    const ready = new Promise<number>((resolve, reject) => {
      proc.once('exit', (code) => reject(new Error(`smtp server exited with ${code}`)));
      createInterface({ input: proc.stdout }).on('line', (line) => {
        const msg = JSON.parse(line) as { port?: number; mail?: ReceivedMail; ack?: string };
        if (msg.port) resolve(msg.port);
        if (msg.mail) this.received.push(msg.mail);
        if (msg.ack) this.acks.push(msg.ack);
      });
    });
    this.port = await ready;
    return this;
  }

  /** The next `n` messages are refused with a temporary error (451), as a busy server does. */
  async failNext(n: number): Promise<void> {
    this.acks = [];
    this.proc!.stdin!.write(`fail ${n}\n`);
    await this.waitFor(() => this.acks.length > 0, 5_000, 'the server did not acknowledge');
  }

  /** Waits (bounded) until `n` messages have arrived in all. */
  async until(n: number, timeoutMs = 20_000): Promise<ReceivedMail[]> {
    await this.waitFor(() => this.received.length >= n, timeoutMs, `only ${this.received.length} of ${n} messages arrived within ${timeoutMs} ms`);
    return this.received;
  }

  private async waitFor(done: () => boolean, timeoutMs: number, message: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(message);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async stop(): Promise<void> {
    const proc = this.proc;
    if (!proc || proc.exitCode !== null) return;
    proc.kill('SIGTERM');
    await once(proc, 'exit');
  }
}
