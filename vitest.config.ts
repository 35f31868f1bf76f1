import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['main/**/*.test.ts', 'test/**/*.test.ts'],
    // Native modules (better-sqlite3) and child processes: separate processes, not threads.
    pool: 'forks',
    // A page's first load in Chromium (its chunks, the serve process starting) can take over a minute
    // when CI runs the suite's files side by side on two cores; a test that fails, fails on its assertion.
    testTimeout: 180_000,
    hookTimeout: 120_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
