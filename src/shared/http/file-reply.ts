import { StreamableFile } from '@nestjs/common';
import type { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

/** A file answer (its headers set on the reply, its bytes streamed), as a controller returns it. */
export function replyWithFile(reply: FastifyReply, file: { mimeType: string; headers: Record<string, string>; body: Readable }): StreamableFile {
  for (const [name, value] of Object.entries(file.headers)) reply.header(name, value);
  return new StreamableFile(file.body, { type: file.mimeType });
}
