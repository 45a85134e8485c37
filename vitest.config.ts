import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // PGlite costs seconds and hundreds of MB per instance; two workers fit a 2-core machine.
    pool: 'forks',
    maxWorkers: 2,
    // Test files share their worker process instead of each importing Bolt, drizzle and PGlite afresh: about
    // 45 s less on this machine (vitest 300 → 254 s). Every file opens its own database and servers, so
    // nothing a test relies on is shared.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
