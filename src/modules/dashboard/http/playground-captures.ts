import { Injectable } from '@nestjs/common';
import { DomainError, FieldError, NotFoundError } from '../../../shared/domain/domain-error';
import { UuidParam } from '../../../shared/http/uuid-param';
import { parseId } from '../../../shared/http/validation';
import { UrlPolicy } from '../../../shared/url-policy';
import { RendersService } from '../../renders/application/renders.service';
import type { RenderProps } from '../../renders/domain/render';
import { CaptureJobsService } from '../../screenshots/application/capture-jobs.service';
import { TakeScreenshotDto, toCaptureOptions } from '../../../shared/http/capture-option-fields';
import { WebsitesService } from '../../websites/application/websites.service';
import { UpdateWebsiteDto } from '../../websites/http/website.dto';
import { asFormErrors, CAPTURE_REQUEST_FIELDS, FormRejected, formToBody, validateBody } from './website-form';

/** The capture's failures that are one option's fault, and that option (capture-run.ts's words). */
const OPTION_FAILURES: Array<[RegExp, string]> = [
  [/^No element matches (wait_for_selector|selector) "/, ''],
  [/^Timed out after \d+ ms waiting for selector "/, 'wait_for_selector'],
  [/^Timed out after \d+ ms waiting for an element matching selector "/, 'selector'],
];

/** The options whose value is a selector, where an invalid one is named (`Invalid CSS selector: …`). */
const SELECTOR_OPTIONS = ['wait_for_selector', 'selector', 'hide_selectors', 'remove_selectors', 'click', 'full_page_scroll_selector'];

/**
 * Which field a failed try's message belongs beside: the option that failed it (a selector that never appeared, an
 * invalid one), else the URL. The form opens that field's section, so the message is seen where the fix is typed.
 */
export function failedField(message: string, values: URLSearchParams): string {
  for (const [pattern, field] of OPTION_FAILURES) {
    const m = pattern.exec(message);
    if (m) return field || m[1];
  }
  const invalid = /^Invalid CSS selector: (.*)$/s.exec(message);
  if (invalid) {
    const named = SELECTOR_OPTIONS.find((name) => (values.get(name) ?? '').split('\n').some((line) => line.trim() === invalid[1].trim()));
    if (named) return named;
  }
  return 'url';
}

/** What a try became: a capture job of one of the account's websites, or a render of a bare URL (its id). */
export type PlaygroundTry = { kind: 'job'; id: string } | { kind: 'render'; id: string };

/**
 * A one-off capture of a URL or of one of the account's websites, as the playground's Try and the overview's
 * "Capture a URL" box take it. A website: a real capture job through CaptureJobsService.requestCapture (plan
 * check, URL policy, the API's validation). A bare URL: the very render `GET /render` makes (RendersService), so no
 * website is created for it; the answer waits for the capture, like the API's.
 */
@Injectable()
export class PlaygroundCaptures {
  constructor(
    private readonly websites: WebsitesService,
    private readonly captureJobs: CaptureJobsService,
    private readonly renders: RendersService,
    private readonly urlPolicy: UrlPolicy,
  ) {}

  async tryCapture(accountId: number, values: URLSearchParams, clientGone: AbortSignal = new AbortController().signal): Promise<PlaygroundTry> {
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
    const options = toCaptureOptions(checked.dto);
    if (websiteId) {
      const website = await this.websites.get(accountId, websiteId);
      const job = await asFormErrors(() => this.captureJobs.requestCapture(accountId, website.id, options, null, 'dashboard'));
      return { kind: 'job', id: job.id };
    }
    try {
      // linked: the stored image is kept an hour, so the page the form leads to (and a reload) can show it.
      const outcome = await asFormErrors(() =>
        this.renders.render(accountId, { url, options, ttlSeconds: 0, cacheKey: null, fresh: false, linked: true }, clientGone),
      );
      return { kind: 'render', id: outcome.render.id };
    } catch (err) {
      if (err instanceof DomainError && (err.code === 'capture_failed' || err.code === 'capture_timeout')) {
        const code = typeof err.extra.error_code === 'string' ? ` (${err.extra.error_code})` : '';
        throw new FormRejected([{ field: failedField(err.message, values), message: `The capture failed: ${err.message}${code}` }]);
      }
      throw err;
    }
  }

  /** A render of the account, while it is kept (else the 404 page: another account's, swept, or no render id). */
  async keptRender(accountId: number, rawId: string): Promise<RenderProps> {
    const render = await this.renders.kept(new UuidParam().transform(rawId));
    if (render.accountId !== accountId) throw new NotFoundError('Render');
    return render;
  }

  open(render: RenderProps) {
    return this.renders.open(render);
  }
}
