import { Injectable } from '@nestjs/common';
import { FieldError } from '../../../shared/domain/domain-error';
import { parseId } from '../../../shared/http/validation';
import { UrlPolicy } from '../../../shared/url-policy';
import { JobsService } from '../../jobs/application/jobs.service';
import { CaptureJobsService } from '../../screenshots/application/capture-jobs.service';
import { TakeScreenshotDto, toCaptureOptions } from '../../../shared/http/capture-option-fields';
import { WebsitesService } from '../../websites/application/websites.service';
import type { WebsiteProps } from '../../websites/domain/website';
import { UpdateWebsiteDto } from '../../websites/http/website.dto';
import { asFormErrors, CAPTURE_REQUEST_FIELDS, FormRejected, formToBody, PLAYGROUND_WEBSITE_NAME, validateBody } from './website-form';
import { WebsiteNames } from './website-names';

/**
 * A one-off capture of a URL or of one of the account's websites, as the playground's Try and the overview's
 * "Capture a URL" box take it: a real capture job through CaptureJobsService.requestCapture (plan check, URL
 * policy, the API's validation). A bare URL is captured through the account's playground website.
 */
@Injectable()
export class PlaygroundCaptures {
  constructor(
    private readonly websites: WebsitesService,
    private readonly captureJobs: CaptureJobsService,
    private readonly jobs: JobsService,
    private readonly names: WebsiteNames,
    private readonly urlPolicy: UrlPolicy,
  ) {}

  /** One capture: of the chosen website (its saved options fill the rest), or of the URL through the playground website. Its job id. */
  async tryCapture(accountId: number, values: URLSearchParams): Promise<string> {
    const { body, errors: textErrors } = formToBody(CAPTURE_REQUEST_FIELDS, values, false);
    const checked = await validateBody(this.urlPolicy, TakeScreenshotDto, body);
    const websiteId = parseId(values.get('website_id') ?? undefined);
    const url = (values.get('url') ?? '').trim();
    const urlErrors: FieldError[] = [];
    if (!websiteId) {
      const urlCheck = await validateBody(this.urlPolicy, UpdateWebsiteDto, { url });
      urlErrors.push(...urlCheck.errors);
    }
    if (textErrors.length || urlErrors.length || !checked.dto) throw new FormRejected([...urlErrors, ...textErrors, ...checked.errors]);
    const target = websiteId ? await this.websites.get(accountId, websiteId) : await asFormErrors(() => this.playgroundWebsite(accountId, url));
    const job = await asFormErrors(() => this.captureJobs.requestCapture(accountId, target.id, toCaptureOptions(checked.dto), null, 'dashboard'));
    return job.id;
  }
  /**
   * The account's playground website, pointed at `url`. Its URL is only changed while none of its captures is
   * unfinished: a job reads its website's URL when it runs, so a second try meanwhile would capture the wrong page.
   */
  private async playgroundWebsite(accountId: number, url: string): Promise<WebsiteProps> {
    const all = await this.names.all(accountId);
    const existing = all.find((w) => w.name === PLAYGROUND_WEBSITE_NAME);
    if (!existing) return this.websites.create(accountId, { name: PLAYGROUND_WEBSITE_NAME, url, status: 'paused' });
    const website = await this.websites.get(accountId, existing.id);
    const verdict = await this.urlPolicy.check(url);
    if (website.url === url || (verdict.allowed && website.url === verdict.url.toString())) return website;
    // Any unfinished capture of it (not just the newest: several can share a creation time).
    const first = { page: 1, perPage: 1 };
    const unfinished = await Promise.all(
      (['queued', 'running'] as const).map(
        async (status) => (await this.jobs.list(accountId, first, { websiteId: website.id, type: 'screenshot', status })).total,
      ),
    );
    if (unfinished.some((n) => n > 0)) {
      throw new FormRejected([{ field: 'url', message: 'The previous try is still running; try another URL once it has finished.' }]);
    }
    return this.websites.update(accountId, website.id, { url });
  }
}
