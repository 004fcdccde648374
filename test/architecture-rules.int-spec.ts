import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(__dirname, '..');

/**
 * The dependency rules of .dependency-cruiser.cjs (npm run lint) on a small tree of files written for each case: what
 * they refuse and what they let through (issue 43: http → another context's http, and the layer rules on specs).
 */
async function violations(files: Record<string, string>): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'depcruise-'));
  try {
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'commonjs', target: 'es2022', strict: true } }));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const run = promisify(execFile)(
      join(ROOT, 'node_modules', '.bin', 'depcruise'),
      ['src', '--config', join(ROOT, '.dependency-cruiser.cjs'), '--output-type', 'err'],
      {
        cwd: dir,
      },
    );
    const output = await run.then(
      ({ stdout }) => stdout,
      (error: { stdout?: string }) => error.stdout ?? '',
    );
    return [...output.matchAll(/error (\S+): (\S+) → (\S+)/g)].map((m) => `${m[1]}: ${m[2]} → ${m[3]}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('dependency rules (.dependency-cruiser.cjs)', () => {
  it("refuses an http file importing another context's http file, but not its dto files or guards", async () => {
    expect(
      await violations({
        'src/modules/websites/http/website-helper.ts': 'export const helper = 1;\n',
        'src/modules/websites/http/website.dto.ts': 'export const dto = 1;\n',
        'src/modules/accounts/http/auth.guards.ts': 'export const guard = 1;\n',
        'src/modules/dashboard/http/page.ts':
          "import { helper } from '../../websites/http/website-helper';\nimport { dto } from '../../websites/http/website.dto';\nimport { guard } from '../../accounts/http/auth.guards';\nexport const page = helper + dto + guard;\n",
      }),
    ).toEqual(['http-imports-no-other-contexts-http: src/modules/dashboard/http/page.ts → src/modules/websites/http/website-helper.ts']);
  }, 60_000);

  it('holds the layer rules for unit specs too: a domain spec importing infrastructure is refused', async () => {
    expect(
      await violations({
        'src/modules/websites/infrastructure/differ.ts': 'export const differ = 1;\n',
        'src/modules/websites/domain/rule.ts': 'export const rule = 1;\n',
        'src/modules/websites/domain/rule.spec.ts':
          "import { differ } from '../infrastructure/differ';\nimport { rule } from './rule';\nexport const both = differ + rule;\n",
      }),
    ).toEqual(['domain-depends-on-domain: src/modules/websites/domain/rule.spec.ts → src/modules/websites/infrastructure/differ.ts']);
  }, 60_000);
});

describe('module names', () => {
  // Node tries require's extensions in the order they were registered (.js, .json, .node, then ts-node's .ts): a bench
  // that loads the service from source under ts-node would load `x.json` for `import … from './x'` beside `x.ts`
  // (every bench:dashboard run failed so, with devices.json beside devices.ts). The built dist/ has .js first.
  it('no JSON file in src has the name of a TypeScript module beside it', () => {
    const clashes = (readdirSync(join(ROOT, 'src'), { recursive: true }) as string[])
      .filter((path) => path.endsWith('.json') && existsSync(join(ROOT, 'src', path.replace(/\.json$/, '.ts'))))
      .sort();
    expect(clashes).toEqual([]);
  });
});
