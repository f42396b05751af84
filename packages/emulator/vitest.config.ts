import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'emulator',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Long suites (the PostgreSQL restart) run only in `npm run test:long`.
    exclude: process.env.SHOPKIT_LONG ? [] : ['**/*.long.test.ts', '**/node_modules/**'],
    // The conformance tests' platform SDK, installed once (test/global-setup.ts).
    globalSetup: ['./test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
