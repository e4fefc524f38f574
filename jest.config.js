/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', isolatedModules: true }] },
  testTimeout: 30000,
  // The money invariant is checked after every test of every file (test/support/ledger-invariant-hook.ts).
  setupFilesAfterEnv: ['<rootDir>/test/support/ledger-invariant-hook.ts'],
};
