import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * How long the suite's longest files took (seconds, `npm test` with PostgreSQL, 2-core machine, load 4–13), for a
 * run that has no durations of its own yet: a clean clone, as in CI. Only the order of files depends on it; a file
 * missing here is ordered by its size, as vitest does.
 */
const KNOWN_SECONDS: Record<string, number> = {
  'test/demo/demo-mode.test.ts': 46,
  'test/blackbox/slack-flow.test.ts': 41,
  'test/audit/audit.test.ts': 40,
  'test/store/hot-query-plans.test.ts': 39,
  'test/cli/crash-recovery.test.ts': 37,
  'test/cli/cli.test.ts': 31,
  'test/cli/eval-feedback.test.ts': 31,
  'test/store/run-store.contract.test.ts': 30,
  'test/eval/eval-cli.test.ts': 30,
  'test/infra/data-dir-read-only.test.ts': 30,
  'test/agent/target-confirmation.test.ts': 25,
  'test/store/pglite-folder.test.ts': 22,
  'test/infra/connection-reset.test.ts': 21,
  'test/replicas/replicas.test.ts': 20,
  'test/infra/slack-hang.test.ts': 18,
  'test/blackbox/operator.test.ts': 18,
  'test/infra/disk-full.test.ts': 18,
  'test/runbooks/catalog.test.ts': 18,
  'test/blackbox/approval-invariant.test.ts': 17,
  'test/infra/postgres-restart.test.ts': 17,
  'test/infra/ingress-store-down.test.ts': 17,
  'test/blackbox/replicas.test.ts': 16,
  'test/blackbox/audit.test.ts': 15,
  'test/infra/database-outage.test.ts': 14,
  'test/ship/compiled-start.test.ts': 14,
  'test/blackbox/channel-scope.test.ts': 14,
  'test/infra/model-outage.test.ts': 14,
  'test/infra/github-outage.test.ts': 13,
  'test/blackbox/late-bound-confirm.test.ts': 13,
  'test/agent/owed-sweep-backlog.test.ts': 12,
  'test/workspace/local-tandem-e2e.test.ts': 11,
  'test/bot/socket-mode.test.ts': 11,
  'test/infra/slack-outage.test.ts': 10,
  'test/blackbox/skip.test.ts': 10,
  'test/schedules/scheduler.test.ts': 10,
  'test/store/unstorable-text.test.ts': 10,
};

/**
 * Longest file first within each project (docs/decisions/040): a long file that starts last ends the run alone while
 * the other worker idles. Vitest orders by the durations of the last run, and on a clean clone, with none, by file
 * size, which put eval-cli (30 s) last of the 117 e2e files and cli.test (31 s) 48th. Here a file's last duration is
 * used when there is one, else the figure above, else its size stands in. Projects still run one after another, as in
 * vitest's own order: a worker is kept for the next file only if that file is of the same project, and a new worker
 * imports everything again.
 */
export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const expected = (spec: TestSpecification) => {
      const file = path.relative(root, spec.moduleId).split(path.sep).join('/');
      const key = `${spec.project.name}:${file}`;
      const last = this.ctx.cache.getFileTestResults(key)?.duration;
      if (last !== undefined) return last;
      if (KNOWN_SECONDS[file] !== undefined) return KNOWN_SECONDS[file] * 1000;
      // Below every figure above: files not listed run after the long ones, the larger first.
      return Math.min(this.ctx.cache.getFileStats(key)?.size ?? 0, 5_000);
    };
    const order = new Map(files.map((spec) => [spec, expected(spec)]));
    return [...files].sort((a, b) => a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder || order.get(b)! - order.get(a)!);
  }
}
