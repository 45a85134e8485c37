import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Three projects (docs/decisions/029-fast-inner-loop.md). `npm test` runs them all; `npm run test:unit` is the inner
 * loop while you change the agent, its tools and the pure views.
 */

/** Tests of the store itself and of what lives in its tables: the real engines (PGlite, PostgreSQL with TEST_DATABASE_URL). */
const STORE = [
  'test/store/**/*.test.ts',
  'test/**/*.contract.test.ts',
  'test/audit/**/*.test.ts',
  'test/runbooks/catalog.test.ts',
  'test/schedules/scheduler.test.ts',
  'test/schedules/schedule-service.test.ts',
];

/**
 * No database server, no app, no child process: the agent on the in-memory store (src/agent/testing/memory-store),
 * except the few agent tests that say why they need a real engine, and the tools, models, config and views.
 */
const UNIT = [
  'test/agent/**/*.test.ts',
  'test/config/**/*.test.ts',
  'test/llm/**/*.test.ts',
  'test/tools/**/*.test.ts',
  'test/runbooks/**/*.test.ts',
  'test/schedules/**/*.test.ts',
  'test/eval/eval.test.ts',
  // The files of test/bot that start no Slack app: Block Kit views and pure helpers.
  'test/bot/views.test.ts',
  'test/bot/schedule-views.test.ts',
  'test/bot/full-plan-view.test.ts',
  'test/bot/follow-up-text.test.ts',
  'test/bot/inbox-key.test.ts',
  'test/bot/thread-ids-views.test.ts',
  // And what `tandem show` prints, a pure function.
  'test/cli/format-run.test.ts',
  'test/cli/no-slack-text.test.ts',
];

/**
 * The e2e files mostly wait (on the processes they start, timers, sockets): with two workers the machine's two cores
 * were 60 % busy. Five fill them (docs/decisions/040-npm-test-in-five-minutes.md: 323 s with three, 273 s with four on
 * session 18's quiet machine; session 20's, twice as fast, kept only 1–1.5 of its cores busy with four, and five passed
 * at load 9–19; six at load 18 outran two first starts' 60 s). If a first start outruns its 60 s, four undoes it alone.
 * The store project shares their group, and so their workers' count, so that its files start as the last e2e files end
 * rather than after them. Vitest gives every project of one `groupOrder` the same number of workers.
 */
const WAITING = { maxWorkers: 5, sequence: { groupOrder: 0 } };

export default defineConfig({
  test: {
    // PGlite costs seconds and hundreds of MB per instance: two workers for the unit project, whose files compute. The
    // e2e and store projects have five (below).
    pool: 'forks',
    maxWorkers: 2,
    // Test files share their worker process instead of each importing Bolt, drizzle and PGlite afresh: about
    // 45 s less on this machine (vitest 300 → 254 s). Every file opens its own database and servers, so
    // nothing a test relies on is shared.
    isolate: false,
    // Node 20's V8 aborted a long-lived worker now and then ("unreachable code" while deoptimizing a function with
    // an inlined builtin; docs/decisions/033-v8-deoptimizer-abort.md): 8 of 8 unit runs before, 0 of 3 after.
    // WebAssembly optimised only when it stays hot, as bin/tandem.js sets for the bot (docs/decisions/050): PGlite's
    // databases and Cedar's validator in the workers are mostly code that runs once.
    execArgv: ['--no-turbo-inlining', '--wasm-tiering-budget=1800000000'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      // After the other two when all run in one vitest; `npm test` runs it beside them instead (package.json).
      {
        extends: true,
        test: { name: 'unit', include: UNIT, exclude: [...configDefaults.exclude, ...STORE], sequence: { groupOrder: 1 } },
      },
      { extends: true, test: { name: 'store', include: STORE, globalSetup: ['test/helpers/build-once.ts'], ...WAITING } },
      // Everything else: the black-box scenarios, the Slack app, the CLI and runtime, outages, replicas, shipping.
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...UNIT, ...STORE],
          // Tests marked concurrent (crash-recovery's, each in a world of its own) run two at a time: each mostly
          // waits on the processes it starts, but a start is a second or two of CPU, and more at once crowd the
          // files running beside them on a loaded machine. A test's timeout starts when its turn does.
          maxConcurrency: 2,
          ...WAITING,
          // The processes these tests start run the compiled output, built once here (test/helpers/build-once.ts).
          globalSetup: ['test/helpers/build-once.ts'],
        },
      },
    ],
  },
});
