import request from 'supertest';
import { JobRepository } from '../../src/modules/jobs/application/ports';
import { binary, detailFields } from '../support/assertions';
import { waitForJob } from '../support/jobs';
import { PageServer } from '../support/page-server';
import { readPdf } from '../support/pdf';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

/**
 * The PDF controls through the API (API.md fourth round, Outputs; docs/outputs.md): Take Screenshot and /render with
 * format pdf and pdf_margin, pdf_header / pdf_footer, pdf_page_ranges, pdf_scale, pdf_width / pdf_height, pdf_outline,
 * real Chromium on a page served on 127.0.0.1, the file downloaded and read back with pdf-parse; bad values are 422s
 * naming the field. Business plan, the clock pinned, each test in a fresh minute (rate limit).
 */
const THREE_PAGES =
  '<!doctype html><html><head><title>Handbook</title><style>section{break-after:page}section:last-child{break-after:auto}</style></head><body>' +
  '<section><h1>Part One</h1><p>Alpha</p></section><section><h1>Part Two</h1><p>Beta</p></section><section><h1>Part Three</h1><p>Gamma</p></section>' +
  '</body></html>';
const FOOTER = '<div style="font-size:10px;width:100%;text-align:center">Page <span class="pageNumber"></span> of <span class="totalPages"></span></div>';
const PT_PER_MM = 72 / 25.4;

describe('PDF controls through the API (real Chromium)', () => {
  let t: TestApp;
  let pages: PageServer;
  let account: TestAccount;
  let siteId: number;
  let minute = Date.parse('2034-09-01T08:00:00Z');
  const api = () => request(t.url);

  beforeAll(async () => {
    t = await startTestApp();
    pages = await new PageServer({ '/doc': THREE_PAGES }).start();
    account = await t.createAccount({ plan: 'business' });
    const res = await api()
      .post('/websites')
      .set(account.auth)
      .send({ name: 'handbook', url: `${pages.url}/doc` });
    expect(res.status).toBe(201);
    siteId = res.body.data.id;
  });
  afterAll(async () => {
    await pages?.stop();
    await t?.close();
  });
  beforeEach(() => {
    minute += 60_000;
    t.clock.set(new Date(minute));
  });

  it('Take Screenshot: footer "Page 2 of 3", outline, page size; the download is that PDF', async () => {
    const take = await api()
      .post(`/websites/${siteId}/screenshot`)
      .set(account.auth)
      .send({ format: 'pdf', pdf_footer: FOOTER, pdf_margin: '15mm', pdf_outline: true, pdf_width: '150mm', pdf_height: '200mm' });
    expect(take.status).toBe(200);
    const job = await waitForJob(t.url, account.auth, take.body.job_id);
    expect(job).toMatchObject({ status: 'succeeded', error: null });
    const shot = (await api().get(`/screenshots/${job.screenshot_id}`).set(account.auth).expect(200)).body.data;
    expect(shot).toMatchObject({ format: 'pdf', mime_type: 'application/pdf', width: Math.round((150 / 25.4) * 96), height: Math.round((200 / 25.4) * 96) });
    const file = await api().get(`/screenshots/${shot.id}/download`).set(account.auth).buffer(true).parse(binary).expect(200);
    expect(file.headers['content-type']).toBe('application/pdf');
    const read = await readPdf(file.body as Buffer);
    expect(read.pages).toBe(3);
    expect(read.pageTexts[1]).toContain('Page 2 of 3');
    expect(read.outline).toEqual(expect.arrayContaining(['Part One', 'Part Two', 'Part Three']));
    expect(Math.abs(read.sizes[0].width - 150 * PT_PER_MM)).toBeLessThanOrEqual(1);
    expect(Math.abs(read.sizes[0].height - 200 * PT_PER_MM)).toBeLessThanOrEqual(1);
  });

  it('/render: pdf_page_ranges and pdf_footer in the query; a range past the end fails in words', async () => {
    const res = await api()
      .get('/render')
      .query({ url: `${pages.url}/doc`, format: 'pdf', pdf_page_ranges: '2-3', pdf_footer: FOOTER, pdf_scale: '0.8' })
      .set(account.auth)
      .buffer(true)
      .parse(binary);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    const read = await readPdf(res.body as Buffer);
    expect(read.pages).toBe(2);
    expect(read.pageTexts[0]).toContain('Beta');
    expect(read.pageTexts[0]).toContain('Page 2 of 3');
    const beyond = await api()
      .get('/render')
      .query({ url: `${pages.url}/doc`, format: 'pdf', pdf_page_ranges: '4-9' })
      .set(account.auth);
    expect(beyond.status).toBe(502);
    expect(beyond.body).toMatchObject({ code: 'capture_failed' });
    expect(JSON.stringify(beyond.body)).toContain('pdf_page_ranges \\"4-9\\" asks for pages beyond the document\'s last page (it has 3)');
  });

  it('bad values are 422 validation_failed naming the field; PDF controls with png are refused; nothing is queued', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ format: 'pdf', pdf_margin: '1in 2in' }, 'pdf_margin'],
      [{ format: 'pdf', pdf_margin: '2em' }, 'pdf_margin'],
      [{ format: 'pdf', pdf_page_ranges: '3-1' }, 'pdf_page_ranges'],
      [{ format: 'pdf', pdf_scale: 3 }, 'pdf_scale'],
      [{ format: 'pdf', pdf_width: '5mm' }, 'pdf_width'],
      [{ format: 'pdf', pdf_header: 'x'.repeat(16_385) }, 'pdf_header'],
      [{ format: 'pdf', pdf_outline: 'yes' }, 'pdf_outline'],
      [{ pdf_footer: FOOTER }, 'pdf_footer'],
    ];
    const jobs = () => t.app.get(JobRepository).list(account.id, { page: 1, perPage: 1 }, {});
    const jobsBefore = (await jobs()).total;
    for (const [body, field] of cases) {
      const res = await api().post(`/websites/${siteId}/screenshot`).set(account.auth).send(body);
      expect({ field, status: res.status, code: res.body.code }).toEqual({ field, status: 422, code: 'validation_failed' });
      expect(detailFields(res.body)).toEqual([field]);
    }
    expect((await jobs()).total).toBe(jobsBefore);
    const saved = await api()
      .put(`/websites/${siteId}`)
      .set(account.auth)
      .send({ name: 'handbook', url: `${pages.url}/doc`, capture_options: { format: 'pdf', pdf_margin: '1in 0.5in 1in 0.5in', pdf_page_ranges: '1' } });
    expect(saved.status).toBe(200);
    expect(saved.body.data.capture_options).toMatchObject({ pdf_margin: '1in 0.5in 1in 0.5in', pdf_page_ranges: '1' });
  });
});
