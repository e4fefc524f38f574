/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // Each file is transpiled on its own, without type-checking (fast): tsconfig.json sets isolatedModules, which
  // ts-jest reads; `npm run typecheck` (tsc, in CI) checks the types of the whole tree.
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  testTimeout: 30000,
  // Bundled plugins import the package by its name (tsconfig.json's paths say the same to tsc).
  moduleNameMapper: {
    '^domain-reseller$': '<rootDir>/src/index.ts',
    '^domain-reseller/client$': '<rootDir>/src/client/index.ts',
  },
  // The money invariant is checked after every test of every file (test/support/ledger-invariant-hook.ts).
  setupFilesAfterEnv: ['<rootDir>/test/support/ledger-invariant-hook.ts'],
};
