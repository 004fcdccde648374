/**
 * The SQL of migration 1763801100000-list-counts (list_counts and usage_hours, kept by triggers): the triggers'
 * statements and the backfill that computes both tables from the rows there are. Here, out of the migration file,
 * so bench/data-bench.ts can recount after a bulk seed with the triggers off (PostgreSQL).
 */

export type Dialect = 'postgres' | 'sqlite';
type Row = 'NEW' | 'OLD';

function hourOf(dialect: Dialect, column: string): string {
  return dialect === 'postgres'
    ? `(FLOOR(EXTRACT(EPOCH FROM ${column}) / 3600) * 3600)::bigint`
    : `((CAST(strftime('%s', ${column}) AS INTEGER) / 3600) * 3600)`;
}

/** Adds `delta` to one counter (creating it), when `when` holds. */
function bump(account: string, list: string, delta: string, when = 'TRUE'): string {
  return (
    `INSERT INTO list_counts (account_id, list, total) SELECT ${account}, ${list}, ${delta} WHERE ${when} ` +
    `ON CONFLICT (account_id, list) DO UPDATE SET total = list_counts.total + excluded.total;`
  );
}

function usage(account: string, hour: string, jobs: string, failures: string, bytes: string, when = 'TRUE'): string {
  return (
    `INSERT INTO usage_hours (account_id, hour, jobs, failures, bytes) SELECT ${account}, ${hour}, ${jobs}, ${failures}, ${bytes} WHERE ${when} ` +
    `ON CONFLICT (account_id, hour) DO UPDATE SET jobs = usage_hours.jobs + excluded.jobs, failures = usage_hours.failures + excluded.failures, ` +
    `bytes = usage_hours.bytes + excluded.bytes;`
  );
}

const failed = (r: Row) => `(CASE WHEN ${r}.status = 'failed' THEN 1 ELSE 0 END)`;

function screenshotCounters(d: Dialect, r: Row, sign: '' | '-'): string[] {
  return [
    usage(`${r}.account_id`, hourOf(d, `${r}.taken_at`), '0', '0', `${sign}${r}.file_size`),
    bump(`${r}.account_id`, `'bytes'`, `${sign}${r}.file_size`),
    bump(`${r}.account_id`, `'changes:website=' || ${r}.website_id`, `${sign}1`, `${r}.changed = TRUE`),
    bump(`${r}.account_id`, `'screenshots'`, `${sign}1`),
    bump(`${r}.account_id`, `'screenshots:scenario=' || ${r}.scenario_id`, `${sign}1`, `${r}.scenario_id IS NOT NULL`),
    bump(`${r}.account_id`, `'screenshots:website=' || ${r}.website_id`, `${sign}1`),
  ];
}

function jobCounters(d: Dialect, r: Row, sign: '' | '-'): string[] {
  return [
    usage(`${r}.account_id`, hourOf(d, `${r}.created_at`), `${sign}1`, `${sign}${failed(r)}`, '0'),
    bump(`${r}.account_id`, `'executions:scenario=' || ${r}.scenario_id`, `${sign}1`, `${r}.type = 'scenario' AND ${r}.scenario_id IS NOT NULL`),
    bump(`${r}.account_id`, `'jobs'`, `${sign}1`),
    bump(`${r}.account_id`, `'jobs:status=' || ${r}.status`, `${sign}1`),
    bump(`${r}.account_id`, `'jobs:type=' || ${r}.type`, `${sign}1`),
    bump(`${r}.account_id`, `'jobs:website=' || ${r}.website_id`, `${sign}1`, `${r}.website_id IS NOT NULL`),
  ];
}

/** A job's status change: the failures of its hour, then its two status counters (in key order on PostgreSQL). */
function jobStatusChange(d: Dialect): string[] {
  const hour = hourOf(d, 'NEW.created_at');
  const out = [usage('NEW.account_id', hour, '0', `${failed('NEW')} - ${failed('OLD')}`, '0', `${failed('NEW')} <> ${failed('OLD')}`)];
  const from = bump('OLD.account_id', `'jobs:status=' || OLD.status`, '-1');
  const to = bump('NEW.account_id', `'jobs:status=' || NEW.status`, '1');
  if (d === 'sqlite') return [...out, from, to];
  return [...out, `IF OLD.status < NEW.status THEN ${from} ${to} ELSE ${to} ${from} END IF;`];
}

/** Moves of a job between websites or scenarios (rare): out of the old counters, into the new ones. */
function jobMoves(r: Row, sign: '' | '-'): string[] {
  return [
    bump(`${r}.account_id`, `'executions:scenario=' || ${r}.scenario_id`, `${sign}1`, `${r}.type = 'scenario' AND ${r}.scenario_id IS NOT NULL`),
    bump(`${r}.account_id`, `'jobs:type=' || ${r}.type`, `${sign}1`),
    bump(`${r}.account_id`, `'jobs:website=' || ${r}.website_id`, `${sign}1`, `${r}.website_id IS NOT NULL`),
  ];
}

export interface TriggerSpec {
  name: string;
  table: string;
  event: string;
  /** SQLite's WHEN; on PostgreSQL the same test wraps the body. */
  when?: string;
  body: string[];
}

export function triggers(d: Dialect): TriggerSpec[] {
  const distinct = (a: string, b: string) => (d === 'postgres' ? `${a} IS DISTINCT FROM ${b}` : `${a} IS NOT ${b}`);
  return [
    { name: 'tr_screenshots_counted_insert', table: 'screenshots', event: 'INSERT', body: screenshotCounters(d, 'NEW', '') },
    { name: 'tr_screenshots_counted_delete', table: 'screenshots', event: 'DELETE', body: screenshotCounters(d, 'OLD', '-') },
    {
      name: 'tr_screenshots_counted_changed',
      table: 'screenshots',
      event: 'UPDATE OF changed',
      when: distinct('OLD.changed', 'NEW.changed'),
      body: [
        bump('OLD.account_id', `'changes:website=' || OLD.website_id`, '-1', 'OLD.changed = TRUE'),
        bump('NEW.account_id', `'changes:website=' || NEW.website_id`, '1', 'NEW.changed = TRUE'),
      ],
    },
    {
      // A screenshot's instant or size rewritten (no capture does; an operator or a test may): its bytes move hours.
      name: 'tr_screenshots_counted_moved',
      table: 'screenshots',
      event: 'UPDATE OF taken_at, file_size',
      when: `${distinct('OLD.taken_at', 'NEW.taken_at')} OR ${distinct('OLD.file_size', 'NEW.file_size')}`,
      body: [
        usage('OLD.account_id', hourOf(d, 'OLD.taken_at'), '0', '0', '-OLD.file_size'),
        usage('NEW.account_id', hourOf(d, 'NEW.taken_at'), '0', '0', 'NEW.file_size'),
        bump('NEW.account_id', `'bytes'`, 'NEW.file_size - OLD.file_size'),
      ],
    },
    {
      // A job's created_at rewritten: it moves hours with its old status (a status changed by the same UPDATE is
      // the status trigger's, which counts it at the new hour).
      name: 'tr_jobs_counted_created',
      table: 'jobs',
      event: 'UPDATE OF created_at',
      when: distinct('OLD.created_at', 'NEW.created_at'),
      body: [
        usage('OLD.account_id', hourOf(d, 'OLD.created_at'), '-1', `-${failed('OLD')}`, '0'),
        usage('NEW.account_id', hourOf(d, 'NEW.created_at'), '1', failed('OLD'), '0'),
      ],
    },
    { name: 'tr_jobs_counted_insert', table: 'jobs', event: 'INSERT', body: jobCounters(d, 'NEW', '') },
    { name: 'tr_jobs_counted_delete', table: 'jobs', event: 'DELETE', body: jobCounters(d, 'OLD', '-') },
    { name: 'tr_jobs_counted_status', table: 'jobs', event: 'UPDATE OF status', when: distinct('OLD.status', 'NEW.status'), body: jobStatusChange(d) },
    {
      name: 'tr_jobs_counted_moved',
      table: 'jobs',
      event: 'UPDATE OF website_id, scenario_id, type',
      when: `${distinct('OLD.website_id', 'NEW.website_id')} OR ${distinct('OLD.scenario_id', 'NEW.scenario_id')} OR ${distinct('OLD.type', 'NEW.type')}`,
      body: [...jobMoves('OLD', '-'), ...jobMoves('NEW', '')],
    },
    { name: 'tr_websites_counted_insert', table: 'websites', event: 'INSERT', body: [bump('NEW.account_id', `'websites'`, '1')] },
    { name: 'tr_websites_counted_delete', table: 'websites', event: 'DELETE', body: [bump('OLD.account_id', `'websites'`, '-1')] },
  ];
}

/** The counters as the triggers would have kept them, from the rows there are (run once, before the triggers exist). */
export function backfill(d: Dialect): string[] {
  const into = 'INSERT INTO list_counts (account_id, list, total)';
  return [
    `${into} SELECT account_id, 'screenshots', COUNT(*) FROM screenshots GROUP BY account_id`,
    `${into} SELECT account_id, 'screenshots:website=' || website_id, COUNT(*) FROM screenshots GROUP BY account_id, website_id`,
    `${into} SELECT account_id, 'screenshots:scenario=' || scenario_id, COUNT(*) FROM screenshots WHERE scenario_id IS NOT NULL GROUP BY account_id, scenario_id`,
    `${into} SELECT account_id, 'changes:website=' || website_id, COUNT(*) FROM screenshots WHERE changed = TRUE GROUP BY account_id, website_id`,
    `${into} SELECT account_id, 'bytes', SUM(file_size) FROM screenshots GROUP BY account_id`,
    `${into} SELECT account_id, 'jobs', COUNT(*) FROM jobs GROUP BY account_id`,
    `${into} SELECT account_id, 'jobs:status=' || status, COUNT(*) FROM jobs GROUP BY account_id, status`,
    `${into} SELECT account_id, 'jobs:type=' || type, COUNT(*) FROM jobs GROUP BY account_id, type`,
    `${into} SELECT account_id, 'jobs:website=' || website_id, COUNT(*) FROM jobs WHERE website_id IS NOT NULL GROUP BY account_id, website_id`,
    `${into} SELECT account_id, 'executions:scenario=' || scenario_id, COUNT(*) FROM jobs WHERE type = 'scenario' AND scenario_id IS NOT NULL GROUP BY account_id, scenario_id`,
    `${into} SELECT account_id, 'websites', COUNT(*) FROM websites GROUP BY account_id`,
    `INSERT INTO usage_hours (account_id, hour, jobs, failures, bytes) SELECT account_id, ${hourOf(d, 'created_at')}, COUNT(*), ` +
      `SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END), 0 FROM jobs WHERE TRUE GROUP BY account_id, ${hourOf(d, 'created_at')}`,
    `INSERT INTO usage_hours (account_id, hour, jobs, failures, bytes) SELECT account_id, ${hourOf(d, 'taken_at')}, 0, 0, SUM(file_size) ` +
      `FROM screenshots WHERE TRUE GROUP BY account_id, ${hourOf(d, 'taken_at')} ` +
      `ON CONFLICT (account_id, hour) DO UPDATE SET bytes = usage_hours.bytes + excluded.bytes`,
  ];
}
