import type { WaitUntil } from '../../../shared/domain/wait-until';

/** What a capture job was asked for (Take Screenshot body, website defaults applied): stored on the job. */
export interface CaptureOptions {
  fullPage?: boolean;
  viewportWidth?: number;
  viewportHeight?: number;
  delayMs?: number;
  waitForSelector?: string;
  deviceScaleFactor?: number;
  hideSelectors?: string[];
  darkMode?: boolean;
  waitUntil?: WaitUntil;
}
