import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'storefront',
    include: ['src/**/*.test.{ts,tsx}', 'e2e/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // `expect.poll` waits until its condition holds, 1 s by default: on a loaded machine (a full
    // run beside Chromium) a page's render after a navigation took longer, and a test failed that
    // passed alone. A longer wait changes nothing for a condition that holds, and a test still fails
    // when it never does.
    expect: { poll: { timeout: 10_000 } },
  },
});
