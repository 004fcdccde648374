import type { StreamableFile } from '@nestjs/common';
import type { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { FORMAT_FILES } from '../../../shared/domain/output-format';
import { replyWithFile } from '../../../shared/http/file-reply';
import { captureReportView } from '../../screenshots/domain/capture-report';
import { renderFile } from '../application/render-file';
import type { RenderOutcome } from '../application/renders.service';
import type { RenderProps } from '../domain/render';

/** The stored file as the answer: its type and length, the render's id, the capture report (renderFile). */
export function replyWithRender(reply: FastifyReply, render: RenderProps, body: Readable, cacheControl: string): StreamableFile {
  return replyWithFile(reply, renderFile(render, body, cacheControl));
}

/**
 * The one Cache-Control of an answer a CDN may keep (a signed link's): `public, max-age=<whole seconds until the
 * earliest of the deadlines>`, never negative (0 when a deadline has passed). A null deadline bounds nothing.
 */
export function publicCacheControl(now: Date, ...deadlines: Array<Date | null>): string {
  const until = Math.min(...deadlines.map((d) => d?.getTime() ?? Infinity));
  const seconds = Number.isFinite(until) ? Math.max(0, Math.floor((until - now.getTime()) / 1000)) : 0;
  return `public, max-age=${seconds}`;
}

/** X-Cache, and Age on a hit (seconds since the entry was made). */
export function cacheHeaders(reply: FastifyReply, outcome: RenderOutcome): void {
  reply.header('X-Cache', outcome.cache);
  if (outcome.cache === 'HIT') reply.header('Age', String(outcome.age));
}

/** The json answer's `data`. */
export function renderView(render: RenderProps, link: { url: string; expiresAt: Date }) {
  return {
    id: render.id,
    url: link.url,
    expires_at: link.expiresAt.toISOString(),
    mime_type: FORMAT_FILES[render.format].mimeType,
    width: render.width,
    height: render.height,
    capture: captureReportView(render.capture),
  };
}
