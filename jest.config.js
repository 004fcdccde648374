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
};
