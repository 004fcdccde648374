import { JobKinds } from '../../jobs/application/job-kinds';
import type { KindLabels } from './views/pages/automation-parts';

/** The dashboard's names of the job kinds, read from the jobs registry (a kind added there shows up here). */
export function kindLabels(kinds: JobKinds): KindLabels {
  return new Map(kinds.all().map((kind) => [kind.name, kind.label]));
}
