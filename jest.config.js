/** Unit specs live beside the code (src/**\/*.spec.ts); e2e and integration specs in test/. */
module.exports = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  rootDir: '.',
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testRegex: '.*\\.(spec|e2e-spec)\\.ts$',
  transform: { '^.+\\.ts$': ['ts-jest', {}] },
  testTimeout: 60000,
  setupFiles: ['reflect-metadata'],
  // A suite that leaves a socket open (a driver's reconnect timer, a late Bull client) must not keep the
  // run alive after its results are written: CI once waited out its whole limit on a finished run.
  forceExit: true,
};
