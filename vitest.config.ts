import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*'],
    // The long suites (SHOPKIT_LONG=1, `npm run test:long`) run one file at a time: the PostgreSQL
    // restart (packages/emulator/test/faults.long.test.ts) would break the soak on the same server.
    fileParallelism: !process.env.SHOPKIT_LONG,
  },
});
