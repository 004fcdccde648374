import { applyDecorators, Header } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { parseId } from '../../../shared/http/validation';

/** A handler that answers an HTML page (the returned string). */
export const HtmlPage = (): MethodDecorator => applyDecorators(Header('Content-Type', 'text/html; charset=utf-8'));

/** Post/redirect/get: a form post answers 303 so a reload never posts twice. */
export function seeOther(reply: FastifyReply, location: string): string {
  reply.status(303).header('Location', location);
  return '';
}

/** `?page=` of a dashboard list: lenient (a bad value shows the first page rather than an error). */
export function pageParam(raw: string | undefined): number {
  const n = Number(raw);
  return Number.isInteger(n) && n >= 1 && n <= 1_000_000 ? n : 1;
}

/** A positive integer query value an id column can hold, or undefined. */
export function idQuery(raw: string | undefined): number | undefined {
  return parseId(raw) ?? undefined;
}

export const DASHBOARD_PAGE_SIZE = 24;

export function lastPage(total: number, perPage: number): number {
  return Math.max(1, Math.ceil(total / perPage));
}

/** The `site` search of a website picker (views/components.ts websitePicker), trimmed and bounded; absent when blank. */
export function pickerSearch(raw: unknown): string | undefined {
  return typeof raw === 'string' && raw.trim() ? raw.trim().slice(0, 200) : undefined;
}
