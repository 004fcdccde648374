import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import './puppeteer-debug';

type Debugger = ((...args: unknown[]) => void) & { enabled: boolean };
type CreateDebug = ((namespace: string) => Debugger) & { enable(namespaces: string): void; disable(): string };

const load = createRequire(__filename);
/** The `debug` module exactly as puppeteer-core's lazy `require('debug')` gets it. */
const fromPuppeteer = () => load(load.resolve('debug', { paths: [dirname(load.resolve('puppeteer-core'))] })) as CreateDebug & { default: CreateDebug };

describe("puppeteer's debug module", () => {
  it('gives one instance per namespace, however often puppeteer asks (it asks on every swallowed protocol error)', () => {
    const debug = fromPuppeteer();
    expect(debug('puppeteer:error')).toBe(debug('puppeteer:error'));
    expect(debug.default('puppeteer:error')).toBe(debug('puppeteer:error'));
    expect(debug('puppeteer:protocol')).not.toBe(debug('puppeteer:error'));
  });

  it('still honours DEBUG: an instance made while a namespace was off logs once it is enabled', () => {
    const debug = fromPuppeteer();
    const instance = debug('puppeteer:test-channel');
    const before = debug.disable();
    try {
      expect(instance.enabled).toBe(false);
      debug.enable('puppeteer:*');
      expect(debug('puppeteer:test-channel').enabled).toBe(true);
    } finally {
      debug.enable(before);
    }
  });
});
