import { CaptureOptions, VIEWPORT } from '../../../shared/domain/capture-option-table';
import type { AlertWhen } from './change-conditions';

/** Website rules (API.md, Websites): bounds and defaults live here and nowhere else. */
export const WEBSITE_RULES = {
  nameMax: 255,
  urlMax: 2048,
  viewportWidth: VIEWPORT.width,
  viewportHeight: VIEWPORT.height,
  fullPageDefault: false,
  /** Change history (API.md): `changed` = changed_ratio > change_threshold; the selectors' boxes are masked out. */
  changeThreshold: { min: 0, max: 1, default: 0.001 },
  changeIgnoreSelectorsMax: 50,
  selectorMax: 1000,
} as const;

export const WEBSITE_STATUSES = ['active', 'paused'] as const;
export type WebsiteStatus = (typeof WEBSITE_STATUSES)[number];

export interface WebsiteProps {
  id: number;
  accountId: number;
  name: string;
  url: string;
  viewportWidth: number;
  viewportHeight: number;
  fullPage: boolean;
  status: WebsiteStatus;
  /**
   * Its capture defaults (API.md, `capture_options`): a Take Screenshot body overrides them field by field, and
   * scenario runs use them. A field left out means the service default. Secrets: plain here, sealed by the repository.
   */
  captureOptions: CaptureOptions;
  changeThreshold: number;
  changeIgnoreSelectors: string[];
  /** When a comparison is `changed` (and alerted): change-conditions.ts. Empty: every change counts. */
  alertWhen: AlertWhen;
  /** Regular expressions (RE2): matching lines are left out of the text diff (change-conditions.ts). */
  ignoreText: string[];
  lastScreenshotAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export type WebsiteDraft = Omit<WebsiteProps, 'id' | 'lastScreenshotAt' | 'createdAt' | 'updatedAt'>;

export interface WebsiteInput {
  name: string;
  url: string;
  viewportWidth?: number;
  viewportHeight?: number;
  fullPage?: boolean;
  status?: WebsiteStatus;
  captureOptions?: CaptureOptions;
  changeThreshold?: number;
  changeIgnoreSelectors?: string[];
  alertWhen?: AlertWhen;
  ignoreText?: string[];
}

export type WebsiteChanges = Partial<WebsiteInput>;

/** A website and what it decides itself (its defaults, whether schedules capture it). */
export class Website {
  private constructor(readonly props: Readonly<WebsiteDraft & Partial<Pick<WebsiteProps, 'id'>>>) {}

  /** A new website of `accountId`: the bounds' defaults for what the input leaves out, active unless paused. */
  static create(accountId: number, input: WebsiteInput): Website {
    return new Website({
      accountId,
      name: input.name,
      url: input.url,
      viewportWidth: input.viewportWidth ?? WEBSITE_RULES.viewportWidth.default,
      viewportHeight: input.viewportHeight ?? WEBSITE_RULES.viewportHeight.default,
      fullPage: input.fullPage ?? WEBSITE_RULES.fullPageDefault,
      status: input.status ?? 'active',
      captureOptions: input.captureOptions ?? {},
      changeThreshold: input.changeThreshold ?? WEBSITE_RULES.changeThreshold.default,
      changeIgnoreSelectors: input.changeIgnoreSelectors ?? [],
      alertWhen: input.alertWhen ?? {},
      ignoreText: input.ignoreText ?? [],
    });
  }

  /** A stored website, as the repository returns it. */
  static restore(props: WebsiteProps): Website {
    return new Website({ ...props });
  }

  /** Paused websites keep their data but are skipped by schedules. */
  isCapturedBySchedules(): boolean {
    return this.props.status === 'active';
  }
}
