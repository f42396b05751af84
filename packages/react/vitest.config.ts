import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'react',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['test/setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
