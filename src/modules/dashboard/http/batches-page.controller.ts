import { Get, Param, Post, Query, Req, Res, StreamableFile } from '@nestjs/common';
import { parse } from 'csv-parse/sync';
import type { FastifyReply } from 'fastify';
import { Clock } from '../../../shared/domain/clock';
import { ValidationFailedError } from '../../../shared/domain/domain-error';
import { UuidParam } from '../../../shared/http/uuid-param';
import { PlanNoApiAccessError } from '../../accounts/domain/errors';
import { planBatchSize } from '../../accounts/domain/plan';
import { BatchesService, type BatchInput } from '../../batches/application/batches.service';
import type { CaptureOptions } from '../../../shared/domain/capture-option-table';
import type { OutputFormat } from '../../../shared/domain/output-format';
import { DashboardController } from './dashboard-pages.decorator';
import { DashboardRequest, DashboardViewer, formFields, Viewer } from './dashboard-request';
import { DASHBOARD_PAGE_SIZE, HtmlPage, lastPage, pageParam, seeOther } from './responses';
import { BatchFormValues, batchesPage, batchPage, EMPTY_BATCH_FORM } from './views/pages/batches.page';

const ITEMS_PER_PAGE = 100;
const FORMATS = ['png', 'jpeg', 'webp', 'pdf'];

/**
 * The URLs of an uploaded CSV (csv-parse): its `url` column when the first row names one, else its first column
 * (a first row that is no URL is taken for a header). Empty cells are skipped.
 */
export function csvUrls(text: string): string[] {
  if (!text.trim()) return [];
  const rows: string[][] = parse(text, { relax_column_count: true, skip_empty_lines: true, trim: true, bom: true });
  if (rows.length === 0) return [];
  const header = rows[0].map((cell) => cell.toLowerCase());
  const column = header.indexOf('url');
  const isUrl = (cell: string | undefined) => typeof cell === 'string' && /^[a-z][a-z0-9+.-]*:/i.test(cell);
  const body = column >= 0 || !isUrl(rows[0][0]) ? rows.slice(1) : rows;
  return body.map((row) => row[Math.max(column, 0)] ?? '').filter((cell) => cell !== '');
}

/** Batches in the dashboard: paste URLs or upload a CSV, watch the progress, download the ZIP, cancel. */
@DashboardController('dashboard/batches')
export class BatchesPageController {
  constructor(
    private readonly batches: BatchesService,
    private readonly clock: Clock,
  ) {}

  @Get()
  @HtmlPage()
  async list(@Viewer() viewer: DashboardViewer, @Query('page') rawPage?: string) {
    return this.listPage(viewer, pageParam(rawPage), EMPTY_BATCH_FORM, []);
  }

  @Post()
  @HtmlPage()
  async create(@Viewer() viewer: DashboardViewer, @Req() request: DashboardRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    if (!viewer.account.hasApiAccess(this.clock.now())) throw new PlanNoApiAccessError(viewer.account.plan);
    const fields = formFields(request);
    const values: BatchFormValues = {
      urls: fields.get('urls') ?? '',
      csv: fields.get('csv') ?? '',
      name: (fields.get('name') ?? '').trim(),
      format: FORMATS.includes(fields.get('format') ?? '') ? (fields.get('format') as string) : 'png',
      fullPage: fields.get('full_page') === 'true',
    };
    let fromCsv: string[];
    try {
      fromCsv = csvUrls(values.csv);
    } catch (err) {
      reply.status(422);
      return this.listPage(viewer, 1, values, [`The CSV could not be read: ${(err as Error).message}`]);
    }
    const urls = [
      ...values.urls
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter((line) => line !== ''),
      ...fromCsv,
    ];
    if (urls.length === 0) {
      reply.status(422);
      return this.listPage(viewer, 1, values, ['Paste at least one URL, or choose a CSV file.']);
    }
    const shared: CaptureOptions = { format: values.format as OutputFormat, ...(values.fullPage ? { fullPage: true } : {}) };
    const input: BatchInput = {
      name: values.name.slice(0, 255) || null,
      list: 'urls',
      shared,
      items: urls.map((url, i) => ({ url, options: {}, field: `urls[${i}]`, urlField: `urls[${i}]` })),
    };
    try {
      const batch = await this.batches.create(viewer.account, input);
      return seeOther(reply, `/dashboard/batches/${batch.id}`);
    } catch (err) {
      if (!(err instanceof ValidationFailedError)) throw err;
      reply.status(422);
      // `urls[3]` is the fourth line of the list (the pasted lines first, then the CSV's).
      const words = err.details.map((d) => {
        const at = /^urls\[(\d+)\]$/.exec(d.field);
        return at ? `${urls[Number(at[1])]} (line ${Number(at[1]) + 1}): ${d.message}` : d.message;
      });
      return this.listPage(viewer, 1, values, words);
    }
  }

  @Get(':id')
  @HtmlPage()
  async show(@Viewer() viewer: DashboardViewer, @Param('id', UuidParam) id: string, @Query('page') rawPage?: string) {
    const page = pageParam(rawPage);
    const found = await this.batches.items(await this.batches.get(viewer.account.id, id), { page, perPage: ITEMS_PER_PAGE });
    return batchPage(viewer, {
      batch: found.batch,
      items: found.page.items,
      running: found.running,
      page: { page, lastPage: lastPage(found.page.total, ITEMS_PER_PAGE), total: found.page.total },
    }).toString();
  }

  @Get(':id/download')
  async download(@Viewer() viewer: DashboardViewer, @Param('id', UuidParam) id: string, @Res({ passthrough: true }) reply: FastifyReply) {
    const { batch, archive } = await this.batches.download(viewer.account.id, id);
    reply.header('Content-Type', 'application/zip');
    reply.header('Content-Disposition', `attachment; filename="batch-${batch.id}.zip"`);
    return new StreamableFile(archive, { type: 'application/zip' });
  }

  @Post(':id/cancel')
  async cancel(@Viewer() viewer: DashboardViewer, @Param('id', UuidParam) id: string, @Res({ passthrough: true }) reply: FastifyReply) {
    await this.batches.cancel(viewer.account.id, id);
    return seeOther(reply, `/dashboard/batches/${id}`);
  }

  private async listPage(viewer: DashboardViewer, page: number, values: BatchFormValues, errors: string[]): Promise<string> {
    const { items, total } = await this.batches.list(viewer.account.id, { page, perPage: DASHBOARD_PAGE_SIZE });
    return batchesPage(viewer, {
      batches: items,
      page: { page, lastPage: lastPage(total, DASHBOARD_PAGE_SIZE), total },
      hasAccess: viewer.account.hasApiAccess(this.clock.now()),
      limit: planBatchSize(viewer.account.plan),
      values,
      errors,
    }).toString();
  }
}
