import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'sdk',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Long suites (soak) run only in `npm run test:long`.
    exclude: process.env.SHOPKIT_LONG ? [] : ['**/*.long.test.ts', '**/node_modules/**'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
