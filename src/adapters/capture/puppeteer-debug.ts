/**
 * puppeteer logs through `debug(prefix)(…)` and, in Node, builds a new `debug` instance on every call — namespace
 * checks and an isatty() syscall included — even with DEBUG unset: on every protocol error it swallows (a frame
 * detached, a context already closed: several per capture). The `debug` module puppeteer loads (lazily, at its
 * first log line) is replaced here by one that makes each namespace's instance once. DEBUG=puppeteer:* still works:
 * an instance asks on each call whether its namespace is enabled. Figures: docs/benchmark.md, "Where node's time
 * goes".
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';

type Debugger = (...args: unknown[]) => void;
type CreateDebug = ((namespace: string) => Debugger) & Record<string, unknown>;

const load = createRequire(__filename);
// The copy puppeteer itself resolves (a dependency of puppeteer-core, not of this project).
const path = load.resolve('debug', { paths: [dirname(load.resolve('puppeteer-core'))] });
const createDebug = load(path) as CreateDebug;
const instances = new Map<string, Debugger>();

function memoizedDebug(namespace: string): Debugger {
  let instance = instances.get(namespace);
  if (!instance) {
    instance = createDebug(namespace);
    instances.set(namespace, instance);
  }
  return instance;
}

const cached = load.cache[path];
if (cached) cached.exports = Object.assign(memoizedDebug, createDebug, { default: memoizedDebug, debug: memoizedDebug });
