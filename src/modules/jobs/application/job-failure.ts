import { CaptureFailure } from '../../screenshots/application/capture.port';
import { errorMessage } from '../../../shared/domain/error-message';

/** The page's own fault (DNS failure, refused connection, timeout): its message is fit to show the client. */
export function isPageFailure(err: unknown): err is CaptureFailure {
  return err instanceof CaptureFailure && err.kind === 'page';
}

/**
 * A failure of ours rather than the page's (disk full, a database timeout, SQLite busy) that the job is retried
 * for, with the public wording chosen where it is thrown. The cause is kept for the log only.
 */
export class InfrastructureFailure extends Error {
  constructor(
    readonly publicReason: string,
    cause: unknown,
  ) {
    super(`${publicReason}: ${errorMessage(cause)}`, { cause });
    this.name = 'InfrastructureFailure';
  }
}

/**
 * How a job's public `error` names the infrastructure failure it ended with. Always a fixed phrase: raw
 * messages carry server paths (EACCES … '/srv/data/…'), CHROME_PATH, SQL constraint names — the operator
 * reads those in the log, API clients never see them.
 */
export function publicInfrastructureReason(err: unknown): string {
  if (err instanceof InfrastructureFailure) return err.publicReason;
  if (err instanceof CaptureFailure) return 'the browser crashed or could not be started';
  return 'an internal error occurred';
}
