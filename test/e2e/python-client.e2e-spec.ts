import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { signRenderUrl } from '../../clients/typescript/src';
import { PageServer, solidPage } from '../support/page-server';
import { startTestApp, TestAccount, TestApp } from '../support/test-app';

const run = promisify(execFile);
const PYTHON_DIR = join(__dirname, '..', '..', 'clients', 'python');
/** The interpreter CI has: Debian's, or whichever python3 is on PATH. Standard library only, no pip. */
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
/** How many tests clients/python/tests holds: a run that found fewer (or skipped any) tested less than it says. */
const PYTHON_TESTS = 20;

/**
 * The Python client (clients/python) against the running service: its unittest suite (tests/test_service.py drives
 * render, websites, screenshots, jobs, the ZIP and signed links over HTTP; tests/test_signing.py checks the signing
 * vectors) run by python3, and this spec fails when any of it fails.
 */
describe('Python client (clients/python) against the running service', () => {
  let t: TestApp;
  let pages: PageServer;
  let account: TestAccount;

  beforeAll(async () => {
    pages = await new PageServer({ '/red': solidPage('rgb(255,0,0)'), '/held': () => undefined }).start();
    t = await startTestApp();
    account = await t.createAccount({ plan: 'business' });
  });
  afterAll(async () => {
    await t?.close();
    await pages?.stop();
  });

  const python = async (args: string[], env: Record<string, string> = {}) => {
    try {
      const { stdout, stderr } = await run(PYTHON, args, {
        cwd: PYTHON_DIR,
        // Bytecode stays out of the source tree; a proxy of the environment must not carry localhost requests.
        env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', NO_PROXY: '127.0.0.1,localhost', no_proxy: '127.0.0.1,localhost', ...env },
        timeout: 240_000,
      });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };
  const unittest = (env: Record<string, string>) => python(['-m', 'unittest', 'discover', '-s', 'tests', '-t', '.', '-v'], env);

  it("runs the Python client's tests against the service: all of them pass, none skipped", async () => {
    const res = await unittest({ SCREENSHOT_BASE_URL: t.url, SCREENSHOT_TOKEN: account.token, PAGES_URL: pages.url });
    // unittest reports on stderr; shown whole when anything is off.
    const report = `${res.stdout}\n${res.stderr}`;
    // The whole report is the failure message when the run failed: which Python test, and its traceback.
    expect(res.code === 0 ? 'exit 0' : report).toBe('exit 0');
    expect(report).toContain(`Ran ${PYTHON_TESTS} tests`);
    expect(report).toMatch(/\nOK\n/);
    expect(report).not.toMatch(/skipped/);
  }, 300_000);

  it('fails when the service refuses it (a wrong token): the run above cannot pass without the service', async () => {
    const res = await unittest({ SCREENSHOT_BASE_URL: t.url, SCREENSHOT_TOKEN: 'sst_wrong', PAGES_URL: pages.url });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(/FAILED \((failures|errors)=\d+/);
    expect(res.stderr).toContain('401');
  }, 300_000);

  it('signs a link byte for byte as the TypeScript client does', async () => {
    const params = { url: `${pages.url}/red?q=café & crème!*'()`, full_page: true, viewport_width: 390, remove_selectors: ['.ad', '#x y'] };
    const expires = 1_900_000_000;
    const script = [
      'import json, sys',
      'from screenshot_client import sign_render_url',
      'a = json.loads(sys.argv[1])',
      "print(sign_render_url(a['base_url'], a['access_key'], a['secret'], a['params'], expires=a['expires']))",
    ].join('\n');
    const input = { base_url: t.url, access_key: 'rk_0123456789abcdef01234567', secret: 'rks_ü-secret', params, expires };
    const res = await python(['-c', script, JSON.stringify(input)]);
    expect(res.stderr).toBe('');
    expect(res.stdout.trim()).toBe(signRenderUrl({ baseUrl: t.url, accessKey: input.access_key, secret: input.secret, params, expires }));
  });
  it('imports nothing outside the standard library and ships its py.typed marker', async () => {
    const script = [
      'import ast, pathlib, sys',
      'found = set()',
      "for file in sorted(pathlib.Path('screenshot_client').glob('*.py')):",
      '    for node in ast.walk(ast.parse(file.read_text())):',
      '        if isinstance(node, ast.Import): found.update(a.name.split(".")[0] for a in node.names)',
      '        elif isinstance(node, ast.ImportFrom) and node.level == 0: found.add(node.module.split(".")[0])',
      "print(' '.join(sorted(m for m in found if m not in sys.stdlib_module_names and m != '__future__')))",
    ].join('\n');
    const res = await python(['-c', script]);
    expect({ code: res.code, outside: res.stdout.trim(), stderr: res.stderr }).toEqual({ code: 0, outside: '', stderr: '' });
    expect(existsSync(join(PYTHON_DIR, 'screenshot_client', 'py.typed'))).toBe(true);
  });
});
