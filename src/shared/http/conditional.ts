import type { Readable } from 'node:stream';
import { StreamableFile } from '@nestjs/common';
import type { FastifyReply } from 'fastify';

/**
 * Conditional GET for stored images. Screenshots and their thumbnails never change once stored, so a
 * browser may keep them for a year (privately: they are one account's) and revalidate by ETag.
 */
export const IMMUTABLE_PRIVATE = 'private, max-age=31536000, immutable';

/** If-None-Match uses the weak comparison (RFC 9110 §13.1.2): `W/"x"` matches `"x"`; `*` matches any. */
export function notModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === etag;
  });
}

/**
 * Answers a stored image: strong ETag, immutable private caching, and 304 (nothing sent, `release` called
 * to free what was opened) when the browser already holds these bytes. `send` builds the body otherwise.
 */
export function replyWithStoredImage<T>(
  reply: FastifyReply,
  ifNoneMatch: string | undefined,
  etag: string,
  send: () => T,
  release: () => void = () => undefined,
): T | undefined {
  reply.header('ETag', etag);
  reply.header('Cache-Control', IMMUTABLE_PRIVATE);
  if (notModified(ifNoneMatch, etag)) {
    release();
    reply.status(304);
    return undefined;
  }
  return send();
}

/** A small stored image held whole (a thumbnail, a diff), with its strong validator. */
export interface StoredImageBytes {
  data: Buffer;
  contentType: string;
  etag: string;
  size: number;
}

/** replyWithStoredImage for stored bytes held whole: the thumbnail, diff, text and text-diff routes (API and dashboard). */
export function replyWithStoredBytes(reply: FastifyReply, ifNoneMatch: string | undefined, image: StoredImageBytes): StreamableFile | undefined {
  return replyWithStoredImage(reply, ifNoneMatch, image.etag, () => new StreamableFile(image.data, { type: image.contentType, length: image.size }));
}

/** A stored file as a download answers it. */
export interface StoredFileDownload {
  fileName: string;
  contentType: string;
  etag: string;
  size: number;
  stream: Readable;
}

/** A stored screenshot file (any format) as an attachment or inline, conditional as replyWithStoredImage. */
export function replyWithStoredFile(reply: FastifyReply, ifNoneMatch: string | undefined, file: StoredFileDownload, disposition: 'inline' | 'attachment') {
  const body = () => {
    reply.header('Content-Disposition', `${disposition}; filename="${file.fileName}"`);
    return new StreamableFile(file.stream, { type: file.contentType, length: file.size });
  };
  return replyWithStoredImage(reply, ifNoneMatch, file.etag, body, () => file.stream.destroy());
}
