import { Injectable, Logger } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { AppConfig } from '../../../config/app-config';
import { DomainError, ValidationFailedError } from '../../../shared/domain/domain-error';
import { errorMessage } from '../../../shared/domain/error-message';
import { toCaptureOptions } from '../../../shared/http/capture-option-fields';
import { createValidationPipe } from '../../../shared/http/validation';
import { UrlPolicy } from '../../../shared/url-policy';
import type { Account } from '../../accounts/domain/account';
import { MonitorsService } from '../../monitors/application/monitors.service';
import { CreateWebsiteRequestDto, monitorRequestOf } from '../../monitors/http/dto';
import { MONITOR_EVERY_VALUES } from '../../monitors/domain/monitor';
import { ChannelsService } from '../../notifications/application/channels.service';
import { RendersService } from '../../renders/application/renders.service';
import { RenderDto } from '../../renders/http/dto';
import { ScreenshotsService } from '../../screenshots/application/screenshots.service';
import { screenshotView } from '../../screenshots/http/dto';
import { toChanges } from '../../websites/http/website.dto';

/** A page's markdown is cut here in a tool's answer (a model's context is not a file store). */
export const MARKDOWN_MAX_CHARS = 200_000;
/** list_changes answers at most this many changes, newest first. */
const CHANGES_MAX = 50;

const IMAGE_FORMATS = ['png', 'jpeg', 'webp'] as const;

/** What a tool says when it cannot do what was asked: words, never a stack (MCP's `isError` result). */
function refusal(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/** The input as the API's own DTO reads it (same rules, same messages); a ValidationFailedError otherwise. */
async function validated<T>(pipe: ReturnType<typeof createValidationPipe>, metatype: new () => T, body: Record<string, unknown>): Promise<T> {
  const defined = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
  return (await pipe.transform(defined, { type: 'body', metatype })) as T;
}

/** A website's name from its URL when none is given: the host (what a person would call it). */
function nameOf(url: string): string {
  try {
    return new URL(url).host || url.slice(0, 255);
  } catch {
    return url.slice(0, 255);
  }
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/**
 * The Model Context Protocol's tools (issue 47, API.md "For agents"), for one authenticated account: each one a call
 * of the application services the REST API uses — a render (the capture pipeline, the URL policy, the cache rules),
 * a monitor, a website's change history — never an HTTP request to ourselves. Inputs are checked by the API's own
 * DTOs, so a tool refuses exactly what the REST call would, with the same words.
 */
@Injectable()
export class McpTools {
  private readonly logger = new Logger('Mcp');
  private readonly pipe;

  constructor(
    private readonly renders: RendersService,
    private readonly monitors: MonitorsService,
    private readonly screenshots: ScreenshotsService,
    private readonly channels: ChannelsService,
    private readonly config: AppConfig,
    urlPolicy: UrlPolicy,
  ) {
    this.pipe = createValidationPipe({ urlPolicy });
  }

  /** A server with the four tools, acting for `account` (stateless: one per HTTP request). */
  serverFor(account: Account): McpServer {
    const server = new McpServer({ name: 'screenshot-service', version: this.config.apiVersion }, { capabilities: { tools: {} } });
    server.registerTool(
      'screenshot',
      {
        title: 'Screenshot a web page',
        description:
          'Captures a web page in a real browser and returns the image. Waits until the page is still (animations, lazy images). ' +
          'The URL must be public (http or https).',
        inputSchema: {
          url: z.string().describe('The page to capture (http or https)'),
          viewport_width: z.number().int().optional().describe('Browser width in CSS pixels, 320..3840 (default 1280): the image width'),
          viewport_height: z.number().int().optional().describe('Browser height in CSS pixels, 240..2160 (default 800)'),
          full_page: z.boolean().optional().describe('Capture the whole page, not just the viewport (default false)'),
          format: z.enum(IMAGE_FORMATS).optional().describe('png (default), jpeg or webp'),
          device: z.string().optional().describe('Emulate a device by name, e.g. "iPhone 15 Pro" (sets viewport and user agent)'),
          dark_mode: z.boolean().optional().describe('Ask the page for its dark colour scheme'),
        },
        annotations: { readOnlyHint: true, openWorldHint: true },
      },
      (args, extra) => this.guarded('screenshot', () => this.screenshot(account, args, extra.signal)),
    );
    server.registerTool(
      'page_content',
      {
        title: 'Read a web page',
        description:
          'Loads a web page in a real browser and returns its main content as Markdown (as a reader view takes it), followed by its ' +
          'metadata as JSON (title, description, canonical URL, language, Open Graph and Twitter cards, icons, JSON-LD).',
        inputSchema: {
          url: z.string().describe('The page to read (http or https)'),
          viewport_width: z.number().int().optional().describe('Browser width in CSS pixels, 320..3840 (default 1280)'),
        },
        annotations: { readOnlyHint: true, openWorldHint: true },
      },
      (args, extra) => this.guarded('page_content', () => this.pageContent(account, args, extra.signal)),
    );
    server.registerTool(
      'watch_page',
      {
        title: 'Watch a page for changes',
        description:
          'Starts monitoring a page: it is captured now and then every `every`, each capture compared with the previous one; changes ' +
          '(pixels or visible text) are sent to the given notification channels (ids from the dashboard’s Notifications page; channels ' +
          'set for every website alert too). Returns the website id to use with list_changes.',
        inputSchema: {
          url: z.string().describe('The page to watch (http or https)'),
          every: z.enum(MONITOR_EVERY_VALUES).describe('How often: 5m, 15m, 30m, 1h, 1d or 1w'),
          channel_ids: z.array(z.number().int()).optional().describe('Notification channels to alert about this page'),
          name: z.string().optional().describe('A name for it (default: the host of the URL)'),
        },
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      },
      (args) => this.guarded('watch_page', () => this.watchPage(account, args)),
    );
    server.registerTool(
      'list_changes',
      {
        title: 'List a watched page’s changes',
        description:
          'The captures of a website (from watch_page, or any of your websites) whose comparison with the previous capture found a ' +
          'change, newest first: when, how many pixels changed, how many lines of text were added and removed.',
        inputSchema: {
          website_id: z.number().int().describe('The website, as watch_page returned it'),
          limit: z.number().int().optional().describe(`At most this many changes, 1..${CHANGES_MAX} (default 10)`),
        },
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      (args) => this.guarded('list_changes', () => this.listChanges(account, args)),
    );
    return server;
  }

  /** Domain errors are the words the API would answer; anything else is logged and told as a failure, without detail. */
  private async guarded(tool: string, run: () => Promise<CallToolResult>): Promise<CallToolResult> {
    try {
      return await run();
    } catch (err) {
      if (err instanceof ValidationFailedError) return refusal(`Invalid input: ${err.details.map((d) => `${d.field}: ${d.message}`).join('; ')}`);
      if (err instanceof DomainError) return refusal(err.message);
      this.logger.error(`tool ${tool} failed: ${errorMessage(err)}`);
      return refusal(`The ${tool} tool failed on the server; try again later`);
    }
  }

  private async screenshot(
    account: Account,
    args: { url: string; viewport_width?: number; viewport_height?: number; full_page?: boolean; format?: string; device?: string; dark_mode?: boolean },
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    const dto = await validated(this.pipe, RenderDto, { ...args });
    const outcome = await this.renders.render(
      account.id,
      { url: dto.url, options: toCaptureOptions(dto), ttlSeconds: 0, cacheKey: null, fresh: false, linked: false },
      signal,
    );
    const render = outcome.render;
    const bytes = await readAll(await this.renders.open(render));
    const report = render.capture;
    const facts = [
      `${render.width}×${render.height} ${render.format.toUpperCase()}`,
      report ? `HTTP ${report.httpStatus}` : null,
      report && !report.settled ? 'taken while the page was still busy' : null,
    ].filter((f): f is string => f !== null);
    return {
      content: [
        { type: 'image', data: bytes.toString('base64'), mimeType: `image/${render.format}` },
        { type: 'text', text: `Screenshot of ${report?.finalUrl ?? render.url}${report?.title ? ` (“${report.title}”)` : ''}: ${facts.join(', ')}` },
      ],
    };
  }

  private async pageContent(account: Account, args: { url: string; viewport_width?: number }, signal: AbortSignal): Promise<CallToolResult> {
    const dto = await validated(this.pipe, RenderDto, { ...args });
    const outcome = await this.renders.render(
      account.id,
      {
        url: dto.url,
        options: { ...toCaptureOptions(dto), format: 'markdown' },
        contents: ['metadata'],
        ttlSeconds: 0,
        cacheKey: null,
        fresh: false,
        linked: false,
      },
      signal,
    );
    const markdown = (await readAll(await this.renders.open(outcome.render))).toString('utf8');
    const { metadata } = await this.renders.contents(outcome.render, ['metadata']);
    const cut = markdown.length > MARKDOWN_MAX_CHARS;
    return {
      content: [
        {
          type: 'text',
          text: cut ? `${markdown.slice(0, MARKDOWN_MAX_CHARS)}\n\n[… cut at ${MARKDOWN_MAX_CHARS} characters of ${markdown.length}]` : markdown,
        },
        { type: 'text', text: `Metadata (JSON): ${JSON.stringify(metadata)}` },
      ],
    };
  }

  private async watchPage(account: Account, args: { url: string; every: string; channel_ids?: number[]; name?: string }): Promise<CallToolResult> {
    const dto = await validated(this.pipe, CreateWebsiteRequestDto, {
      name: args.name ?? nameOf(args.url),
      url: args.url,
      monitor: { every: args.every, ...(args.channel_ids ? { channel_ids: args.channel_ids } : {}) },
    });
    const { monitor: monitorDto, ...website } = dto;
    const made = await this.monitors.createWebsite(account.id, { ...toChanges(website), name: dto.name, url: dto.url }, monitorRequestOf(monitorDto), 'api');
    const monitor = made.monitor!;
    const everywhere = (await this.channels.list(account.id, { page: 1, perPage: 100 })).items.filter((c) => c.enabled && c.websiteIds === null);
    const alerted = [...new Set([...monitor.channelIds, ...everywhere.map((c) => c.id)])];
    const lines = [
      `Watching ${made.website.url} every ${monitor.every} as website ${made.website.id} (schedule ${monitor.scheduleId}).`,
      monitor.firstJobId ? `First capture queued: job ${monitor.firstJobId}.` : 'The website is paused: no capture yet.',
      alerted.length
        ? `Changes are sent to notification channel${alerted.length === 1 ? '' : 's'} ${alerted.join(', ')}.`
        : 'No notification channel will alert about it (none given, none set for every website); use list_changes to see its changes.',
      `Use list_changes with website_id ${made.website.id} to read its changes.`,
    ];
    return {
      content: [{ type: 'text', text: lines.join('\n') }],
      structuredContent: {
        website_id: made.website.id,
        url: made.website.url,
        schedule_id: monitor.scheduleId,
        every: monitor.every,
        channel_ids: monitor.channelIds,
        first_job_id: monitor.firstJobId,
      },
    };
  }

  private async listChanges(account: Account, args: { website_id: number; limit?: number }): Promise<CallToolResult> {
    const limit = args.limit ?? 10;
    if (limit < 1 || limit > CHANGES_MAX) return refusal(`Invalid input: limit: limit must be from 1 to ${CHANGES_MAX}`);
    const { items, total } = await this.screenshots.changesOf(account.id, args.website_id, { page: 1, perPage: limit });
    const changes = items.map(screenshotView);
    const lines = changes.map((s) => {
      const c = s.change && 'changed_ratio' in s.change ? s.change : null;
      const ratio = c?.changed_ratio !== null && c?.changed_ratio !== undefined ? `${(c.changed_ratio * 100).toFixed(2)}% of pixels` : 'pixels not compared';
      const text = c && 'text_diff' in c && c.text_diff ? `, text +${c.text_diff.added}/-${c.text_diff.removed} lines` : '';
      return `- ${s.taken_at}: screenshot ${s.id} changed (${ratio}${text})`;
    });
    return {
      content: [
        {
          type: 'text',
          text: total === 0 ? `Website ${args.website_id} has no changes yet.` : `${total} change${total === 1 ? '' : 's'}, newest first:\n${lines.join('\n')}`,
        },
      ],
      structuredContent: { website_id: args.website_id, total, changes },
    };
  }
}
