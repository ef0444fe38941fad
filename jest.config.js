/** Tests are compiled by `tsc` first and run as native ESM (the `ai` package is ESM-only). */
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/dist/test'],
  testMatch: ['**/*.test.js'],
  transform: {},
  globalSetup: '<rootDir>/dist/test/support/global-setup.js',
  globalTeardown: '<rootDir>/dist/test/support/global-teardown.js',
  setupFiles: ['<rootDir>/dist/test/support/quiet-runtime.js'],
  maxWorkers: 1,
  testTimeout: 120000,
  verbose: true,
};
