import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';

/** Node's parser errors we answer with a status of their own; everything else it refuses is a 400. */
const PARSER_ERRORS: Record<string, { status: number; code: string; error: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, code: 'headers_too_large', error: 'Request headers are larger than 16 KiB' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: 'bad_request', error: 'The request was not received in time' },
};

/**
 * Requests Node's HTTP parser refuses before any route or header is known (a NUL or CR in the path, a negative
 * Content-Length, Content-Length with chunked encoding, an unknown method, headers over 16 KiB). They get the
 * API's error body, then the connection is closed: after a framing error nothing more on it can be trusted.
 * No X-RateLimit-* headers: the request's own headers were never read, so no client is known.
 */
export function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const known = PARSER_ERRORS[err.code ?? ''] ?? { status: 400, code: 'bad_request', error: 'Malformed HTTP request' };
  const body = JSON.stringify({ success: false, error: known.error, code: known.code });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${known.status} ${STATUS_CODES[known.status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
