/**
 * The fast part of the suite: tests under `test/unit/` need no Temporal server, so no global
 * setup starts one (`npm run test:unit`). `npm test` (jest.config.js) runs them too, with the rest.
 */
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/dist/test/unit'],
  testMatch: ['**/*.test.js'],
  transform: {},
  verbose: true,
};
