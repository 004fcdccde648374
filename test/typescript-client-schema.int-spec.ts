import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * clients/typescript/src/schema.ts is generated from the OpenAPI document; an endpoint or DTO changed without
 * `npm run generate:client` leaves the client typed against an API that no longer exists. The generator, with
 * --check, builds the document from the current source and compares its output with the committed file.
 */
describe('TypeScript client: generated types match the OpenAPI document', () => {
  it('npm run generate:client would change nothing', async () => {
    const run = promisify(execFile)(process.execPath, [join(__dirname, '..', 'clients', 'typescript', 'scripts', 'generate.mjs'), '--check'], {
      cwd: join(__dirname, '..'),
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    const outcome = await run.then(
      ({ stderr }) => ({ code: 0, stderr }),
      (error: { code?: number; stderr?: string }) => ({ code: error.code, stderr: error.stderr ?? '' }),
    );
    expect(outcome).toEqual({ code: 0, stderr: 'Client types are up to date.\n' });
  }, 240_000);
});
