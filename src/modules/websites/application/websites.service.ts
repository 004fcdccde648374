import { Injectable } from '@nestjs/common';
import { Clock } from '../../../shared/domain/clock';
import { NotFoundError, ValidationFailedError } from '../../../shared/domain/domain-error';
import { Page, PageRequest } from '../../../shared/domain/page-request';
import { UrlPolicy } from '../../../shared/url-policy';
import { keepRedacted, secretConflicts } from '../../../shared/domain/capture-secrets';
import type { CaptureOptions } from '../../../shared/domain/capture-option-table';
import { outputConflicts, pageOptionConflicts, resolveOutput } from '../../../shared/domain/capture-option-rules';
import { Website, WEBSITE_RULES, WebsiteChanges, WebsiteInput, WebsiteProps } from '../domain/website';
import { ignoreTextProblems } from '../domain/change-conditions';
import { WebsiteDeletionListener, WebsiteRepository } from './ports';
import { AppConfig } from '../../../config/app-config';

@Injectable()
export class WebsitesService {
  private readonly deletionListeners: WebsiteDeletionListener[] = [];
  private readonly deletedListeners: WebsiteDeletionListener[] = [];

  constructor(
    private readonly websites: WebsiteRepository,
    private readonly urlPolicy: UrlPolicy,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  /** Runs before the website's row is deleted (while its rows still reference it). */
  onDelete(listener: WebsiteDeletionListener): void {
    this.deletionListeners.push(listener);
  }

  /** Runs once the row is gone: nothing can be stored for the website any more (its foreign key is gone). */
  onDeleted(listener: WebsiteDeletionListener): void {
    this.deletedListeners.push(listener);
  }

  async create(accountId: number, input: WebsiteInput): Promise<WebsiteProps> {
    assertCaptureOptions(this.config.captureTimeoutMs, input.captureOptions, input.viewportWidth ?? WEBSITE_RULES.viewportWidth.default, input.url);
    assertIgnoreText(input.ignoreText);
    const url = await this.checkUrl(input.url);
    return this.websites.create(Website.create(accountId, { ...input, url }).props, this.clock.now());
  }

  /** The account's website, or null (for pages that name websites and skip one deleted meanwhile). */
  find(accountId: number, id: number): Promise<WebsiteProps | null> {
    return this.websites.findOwned(accountId, id);
  }

  async get(accountId: number, id: number): Promise<WebsiteProps> {
    const website = await this.websites.findOwned(accountId, id);
    if (!website) throw new NotFoundError('Website');
    return website;
  }

  list(accountId: number, page: PageRequest): Promise<Page<WebsiteProps>> {
    return this.websites.list(accountId, page);
  }

  async update(accountId: number, id: number, changes: WebsiteChanges): Promise<WebsiteProps> {
    const current = await this.get(accountId, id);
    const checked = { ...changes };
    if (changes.captureOptions?.secrets) {
      // "********" sent back (a client echoing GET) keeps the value stored under that name.
      checked.captureOptions = { ...changes.captureOptions, secrets: keepRedacted(changes.captureOptions.secrets, current.captureOptions.secrets) };
    }
    assertCaptureOptions(
      this.config.captureTimeoutMs,
      checked.captureOptions ?? current.captureOptions,
      changes.viewportWidth ?? current.viewportWidth,
      changes.url ?? current.url,
    );
    assertIgnoreText(changes.ignoreText);
    if (changes.url !== undefined) checked.url = await this.checkUrl(changes.url);
    return this.websites.update(id, checked, this.clock.now());
  }

  async delete(accountId: number, id: number): Promise<void> {
    const website = await this.get(accountId, id);
    for (const listener of this.deletionListeners) await listener(website);
    await this.websites.delete(id);
    for (const listener of this.deletedListeners) await listener(website);
  }

  /** The URL policy at the door: refused URLs never get stored (the capture re-checks at fetch time). */
  private async checkUrl(raw: string): Promise<string> {
    const verdict = await this.urlPolicy.check(raw);
    if (!verdict.allowed) throw ValidationFailedError.of('url', verdict.reason);
    return verdict.url.toString();
  }
}

/** Every ignore_text pattern compiles (RE2): the dashboard's forms and the API alike; 422 naming `ignore_text[i]`. */
function assertIgnoreText(patterns: string[] | undefined): void {
  const problems = patterns ? ignoreTextProblems(patterns) : [];
  if (problems.length > 0) throw new ValidationFailedError(problems);
}

/** Saved defaults must agree with themselves (quality only with jpeg/webp, …): named as the API spells them. */
function assertCaptureOptions(captureTimeoutMs: number, options: CaptureOptions | undefined, viewportWidth: number, url: string): void {
  const conflicts = options
    ? [
        ...outputConflicts(options),
        ...pageOptionConflicts(options, { format: resolveOutput({}, options).format, viewportWidth, viewportSetByRequest: [], captureTimeoutMs }),
        ...secretConflicts(options.secrets, hostOf(url)),
      ]
    : [];
  if (conflicts.length > 0) throw new ValidationFailedError(conflicts.map((c) => ({ ...c, field: `capture_options.${c.field}` })));
}

/** The website's host, for the secrets' first-party rule ('' for a URL the URL policy will refuse anyway). */
function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}
