/**
 * Three tiers (DESIGN.md, "Tools that keep it so"), each a jest project:
 * - unit: `src/**\/*.spec.ts` (and `clients/typescript/src/**\/*.spec.ts`) beside the code — no I/O (no database, browser, Redis, socket or file), under 30 s;
 * - integration: `*.int-spec.ts` beside the adapter they test — one real adapter at a time (SQLite/PostgreSQL,
 *   Chromium, the filesystem, sockets);
 * - e2e: `test/e2e/*.e2e-spec.ts` — the app booted, spoken to over HTTP.
 * `npm test` runs all three; `npm run test:unit` (and :integration, :e2e) one.
 *
 * TypeScript is stripped by SWC (@swc/jest), which does not type-check: `npm run typecheck` does that, in CI and
 * before a commit (docs/testing-tooling.md). SWC keeps what tsconfig.json asks of the emitted code that NestJS,
 * TypeORM and class-validator rely on: legacy decorators with their design-type metadata, and class fields assigned
 * in the constructor rather than defined (useDefineForClassFields: false), so a DTO's declared-only property does not
 * shadow what class-transformer sets.
 */
const swc = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
    target: 'es2022',
    keepClassNames: true,
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};

const tier = (displayName, roots, testRegex) => ({
  displayName,
  testEnvironment: 'node',
  rootDir: '.',
  roots,
  testRegex,
  transform: { '^.+\\.ts$': ['@swc/jest', swc] },
  setupFiles: ['reflect-metadata'],
});

// Specs whose answers cannot depend on the stack: left out of CI's second, scaled-out run (test/stack-independent.js).
const { STACK_INDEPENDENT } = require('./test/stack-independent');
const stackOnly = process.env.TEST_STACK_ONLY === '1';

module.exports = {
  projects: [
    ...(stackOnly ? [] : [tier('unit', ['<rootDir>/src', '<rootDir>/clients/typescript/src'], '\\.spec\\.ts$')]),
    {
      ...tier('integration', ['<rootDir>/src', '<rootDir>/test'], '\\.int-spec\\.ts$'),
      ...(stackOnly ? { testPathIgnorePatterns: ['/node_modules/', ...STACK_INDEPENDENT.map((path) => `<rootDir>/${path}`)] } : {}),
    },
    tier('e2e', ['<rootDir>/test'], '\\.e2e-spec\\.ts$'),
  ],
  testTimeout: 60000,
  // A suite that leaves a socket open (a driver's reconnect timer, a late Bull client) must not keep the
  // run alive after its results are written: CI once waited out its whole limit on a finished run.
  forceExit: true,
};
