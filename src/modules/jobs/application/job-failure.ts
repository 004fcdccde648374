import { errorMessage } from '../../../shared/domain/error-message';

/**
 * A failure a job handler throws to say how its job ends, so that jobs knows none of its handlers' own errors:
 * each context maps its failures into this one (captures: the capture port's CaptureFailure extends it).
 * - `retried` false: the work's own fault (the page's: DNS failure, refused connection, timeout). The job fails
 *   at once with `message`, which is fit to show the client.
 * - `retried` true: ours (a browser crash, a full disk). Retried; should it end the job, the client reads
 *   `publicReason` only, never `message`.
 */
export class JobFailure extends Error {
  constructor(
    readonly retried: boolean,
    message: string,
    readonly publicReason: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'JobFailure';
  }
}

/** The work's own fault (the page's, for a capture): its message is fit to show the client, and it is not retried. */
export function isFinalFailure(err: unknown): err is JobFailure {
  return err instanceof JobFailure && !err.retried;
}

/**
 * A failure of ours rather than the page's (disk full, a database timeout, SQLite busy) that the job is retried
 * for, with the public wording chosen where it is thrown. The cause is kept for the log only.
 */
export class InfrastructureFailure extends JobFailure {
  constructor(publicReason: string, cause: unknown) {
    super(true, `${publicReason}: ${errorMessage(cause)}`, publicReason, { cause });
    this.name = 'InfrastructureFailure';
  }
}

/**
 * How a job's public `error` names the infrastructure failure it ended with. Always a fixed phrase: raw
 * messages carry server paths (EACCES … '/srv/data/…'), CHROME_PATH, SQL constraint names — the operator
 * reads those in the log, API clients never see them.
 */
export function publicInfrastructureReason(err: unknown): string {
  if (err instanceof JobFailure) return err.publicReason;
  return 'an internal error occurred';
}
