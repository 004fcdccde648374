import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { STACK_INDEPENDENT } = require('./stack-independent') as { STACK_INDEPENDENT: string[] };

const ROOT = join(__dirname, '..');

/** Every integration spec a STACK_INDEPENDENT entry names (a folder names the specs under it). */
function specsOf(entry: string): string[] {
  const path = join(ROOT, entry);
  if (!statSync(path).isDirectory()) return [entry];
  return readdirSync(path, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.int-spec.ts'))
    .map((name) => join(entry, name));
}

/** What a spec whose answers depend on the stack (SQLite or PostgreSQL, in-process queue or Redis) reads or starts. */
const STACK_MARKS = [
  /DATABASE_URL/,
  /REDIS_URL/,
  /startTestApp/,
  /AppModule/,
  /new DataSource\(/,
  /from 'typeorm'/,
  /from 'bull'/,
  /from 'ioredis'/,
  /test-database/,
];

describe('the specs CI runs once, not on both stacks (test/stack-independent.js)', () => {
  it.each(STACK_INDEPENDENT)('%s exists and is integration specs that do not touch the stack', (entry) => {
    const specs = specsOf(entry);
    expect(specs.length).toBeGreaterThan(0);
    for (const spec of specs) {
      expect(spec).toMatch(/\.int-spec\.ts$/);
      const text = readFileSync(join(ROOT, spec), 'utf8');
      const marks = STACK_MARKS.filter((mark) => mark.test(text)).map(String);
      expect({ spec, marks }).toEqual({ spec, marks: [] });
    }
  });

  it('the marks find a spec that does touch the stack', () => {
    const text = readFileSync(join(ROOT, 'src/modules/jobs/infrastructure/typeorm-job.repository.int-spec.ts'), 'utf8');
    expect(STACK_MARKS.some((mark) => mark.test(text))).toBe(true);
  });
});
