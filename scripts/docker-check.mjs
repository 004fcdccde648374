#!/usr/bin/env node
/**
 * Checks the Dockerfile without a Docker daemon (none runs on the CI machine): runs its build steps in a clean
 * directory, the way `docker build` would, then starts the runtime stage's CMD and asks its HEALTHCHECK.
 *
 * Each stage gets an empty directory standing for its filesystem root. WORKDIR, ENV, COPY (from the build context,
 * which honours .dockerignore, or `--from=<stage>`) and RUN are carried out in it; RUN runs with bash in the stage's
 * WORKDIR with the stage's ENV. Steps that change the system (apt-get, useradd, mkdir/chown of absolute paths) are
 * listed and skipped: this machine already has those packages (scripts/setup.sh installs the same ones), and they
 * would touch the real root. The runtime is then started as CMD says, on a free port with a temporary DATA_DIR.
 *
 *   node scripts/docker-check.mjs        (npm run docker:check)
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');
const SYSTEM_STEP = /^(apt-get|useradd|groupadd|mkdir -p \/|chown )/;
const work = mkdtempSync(join(tmpdir(), 'docker-check-'));
const log = (line) => console.log(`docker-check: ${line}`);

/** Dockerfile instructions, continuation lines joined, comments dropped. */
function instructions(text) {
  const lines = text.replace(/\\\r?\n/g, ' ').split(/\r?\n/);
  return lines
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const [, op, rest] = /^(\S+)\s+(.*)$/.exec(l);
      return { op: op.toUpperCase(), args: rest.trim() };
    });
}

/** The build context: the repository's files (tracked and untracked, not ignored) minus .dockerignore entries. */
function buildContext() {
  const context = join(work, 'context');
  const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .filter((f) => !ignored.some((pattern) => f === pattern || f.startsWith(`${pattern}/`)))
    .filter((f) => existsSync(join(ROOT, f)));
  for (const file of files) {
    mkdirSync(dirname(join(context, file)), { recursive: true });
    cpSync(join(ROOT, file), join(context, file));
  }
  return context;
}

/** `KEY=value KEY2="v 2"` as ENV writes them. */
function parseEnv(args) {
  const env = {};
  for (const [, key, quoted, plain] of args.matchAll(/(\w+)=(?:"([^"]*)"|(\S*))/g)) env[key] = quoted ?? plain;
  return env;
}

function freePort() {
  return new Promise((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

async function main() {
  const context = buildContext();
  const stages = new Map();
  let stage = null;
  for (const { op, args } of instructions(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))) {
    if (op === 'FROM') {
      const name = /\bAS\s+(\S+)/i.exec(args)?.[1] ?? `stage${stages.size}`;
      stage = { name, root: join(work, name), workdir: '/', env: {}, cmd: null, healthcheck: null, user: null };
      mkdirSync(stage.root, { recursive: true });
      stages.set(name, stage);
      log(`stage ${name} (${args})`);
    } else if (op === 'WORKDIR') {
      stage.workdir = args;
      mkdirSync(join(stage.root, args), { recursive: true });
    } else if (op === 'ENV') {
      Object.assign(stage.env, parseEnv(args));
    } else if (op === 'COPY') {
      const from = /--from=(\S+)/.exec(args)?.[1];
      const parts = args.replace(/--\S+/g, '').trim().split(/\s+/);
      const dest = parts.pop();
      const destDir = resolve(join(stage.root, stage.workdir), dest.startsWith('/') ? join(stage.root, dest) : dest);
      for (const src of parts) {
        const source = from ? join(stages.get(from).root, src) : join(context, src);
        if (!existsSync(source)) throw new Error(`COPY ${src}: not in the ${from ? `stage ${from}` : 'build context'}`);
        const target = dest.endsWith('/') || parts.length > 1 ? join(destDir, src.split('/').pop()) : destDir;
        mkdirSync(dirname(target), { recursive: true });
        cpSync(source, target, { recursive: true });
      }
    } else if (op === 'RUN') {
      if (SYSTEM_STEP.test(args)) {
        log(`skipped (system step, done on this machine by scripts/setup.sh): RUN ${args.slice(0, 100)}…`);
        continue;
      }
      log(`RUN ${args}`);
      const result = spawnSync('bash', ['-euo', 'pipefail', '-c', args], {
        cwd: join(stage.root, stage.workdir),
        env: { ...process.env, NODE_ENV: '', ...stage.env },
        stdio: 'inherit',
      });
      if (result.status !== 0) throw new Error(`RUN failed (${result.status}): ${args}`);
    } else if (op === 'CMD') {
      stage.cmd = JSON.parse(args);
    } else if (op === 'HEALTHCHECK') {
      stage.healthcheck = args.replace(/^(--\S+\s+)*CMD\s+/, '');
    } else if (op === 'USER') {
      stage.user = args;
    }
  }

  // The runtime: the last stage, started as its CMD says.
  const runtime = [...stages.values()].pop();
  if (!runtime.cmd || !runtime.healthcheck) throw new Error('the runtime stage needs a CMD and a HEALTHCHECK');
  if (!runtime.user || runtime.user === 'root') throw new Error('the runtime stage must run as a non-root USER');
  // Tools only the build and the tests use. (typescript and @types/node stay: puppeteer's cosmiconfig and typeorm
  // declare them as peers of runtime code, so `npm prune --omit=dev` rightly keeps them.)
  const devOnly = ['jest', 'eslint', 'prettier', '@nestjs/testing', 'supertest', 'dependency-cruiser', 's3rver', '@swc/jest', 'knip'].filter((pkg) =>
    existsSync(join(runtime.root, runtime.workdir, 'node_modules', pkg)),
  );
  if (devOnly.length) throw new Error(`the runtime image holds devDependencies: ${devOnly.join(', ')}`);
  const port = await freePort();
  const env = { ...process.env, ...runtime.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: join(work, 'data'), DATABASE_URL: '', REDIS_URL: '' };
  if (process.env.CHROME_PATH) env.CHROME_PATH = process.env.CHROME_PATH;
  log(`starting ${runtime.cmd.join(' ')} on port ${port}`);
  const app = spawn(runtime.cmd[0], runtime.cmd.slice(1), { cwd: join(runtime.root, runtime.workdir), env, stdio: ['ignore', 'inherit', 'inherit'] });
  try {
    for (let i = 0; ; i++) {
      if (app.exitCode !== null) throw new Error(`the runtime exited with ${app.exitCode}`);
      const health = spawnSync('bash', ['-c', runtime.healthcheck], { env, timeout: 5000 });
      if (health.status === 0) break;
      if (i > 60) throw new Error('HEALTHCHECK did not pass within 30 s');
      await new Promise((r) => setTimeout(r, 500));
    }
    log('HEALTHCHECK passed: the image builds as written and its runtime starts');
  } finally {
    app.kill('SIGTERM');
    await new Promise((r) => app.once('exit', r));
  }
}

main()
  .then(() => rmSync(work, { recursive: true, force: true }))
  .catch((err) => {
    console.error(`docker-check: FAILED: ${err.message}`);
    rmSync(work, { recursive: true, force: true });
    process.exit(1);
  });
