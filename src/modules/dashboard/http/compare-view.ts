import { NotFoundError } from '../../../shared/domain/domain-error';
import type { ScreenshotsService } from '../../screenshots/application/screenshots.service';
import type { WebsitesService } from '../../websites/application/websites.service';
import type { CompareView } from './views/pages/compare.page';
import { changeState } from './views/pages/history.page';

/**
 * What the compare page shows of one capture, read within one account (another account's id is a 404): the capture,
 * its website, the capture it was compared with (or that it was deleted), whether a diff can be shown, the text diff.
 * `next` is left for the caller (the dashboard's page looks it up; the read-only page of an alert has no navigation).
 */
export async function loadCompareView(
  screenshots: ScreenshotsService,
  websites: WebsitesService,
  accountId: number,
  id: number,
): Promise<Omit<CompareView, 'next'>> {
  const shot = await screenshots.get(accountId, id);
  const website = await websites.get(accountId, shot.websiteId);
  const state = changeState(shot);
  const previousId = 'previousId' in state ? state.previousId : null;
  const previous = previousId === null ? null : await screenshots.get(accountId, previousId).catch(notFoundAsNull);
  const previousDeleted = previousId !== null && previous === null;
  // With the previous capture at hand the diff route makes the diff on request; without it, only a diff made
  // before the delete can be shown (always the case for a capture found changed).
  const diffAvailable =
    previousId !== null &&
    (previous !== null ||
      (await screenshots.diff(accountId, id).then(
        () => true,
        (err: unknown) => notFoundAsNull(err) ?? false,
      )));
  const textDiff =
    state.kind === 'changed' || state.kind === 'unchanged'
      ? await screenshots.textDiff(accountId, id).then((answer) => answer.data.toString('utf8'), notFoundAsNull)
      : null;
  return { shot, website, previous, previousDeleted, diffAvailable, textDiff };
}

export function notFoundAsNull(err: unknown): null {
  if (err instanceof NotFoundError) return null;
  throw err;
}
