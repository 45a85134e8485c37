/** `tandem audit`: every check over every run (or one), each violation found. */
import type { RunRecord, RunsPort } from '../agent/ports/runs.ts';
import { AUDIT_CHECKS } from './checks/index.ts';
import { loadRunFacts, type AuditCheck, type AuditContext, type RunFactsStore, type Violation } from './run-facts.ts';
import { withStoredRisks } from './stored-risks.ts';

/** The audit is over every run the store holds. */
const EVERY_RUN = 1_000_000;

export async function auditRuns(
  store: Pick<RunsPort, 'getRun' | 'listRuns'> & RunFactsStore,
  ctx: AuditContext,
  options: { runId?: string; checks?: readonly AuditCheck[] } = {},
): Promise<{ runs: number; violations: Violation[] } | { missing: string }> {
  let runs: RunRecord[];
  if (options.runId) {
    const run = await store.getRun(options.runId);
    if (!run) return { missing: options.runId };
    runs = [run];
  } else runs = await store.listRuns({ limit: EVERY_RUN });
  const violations: Violation[] = [];
  for (const run of runs) {
    const facts = await loadRunFacts(store, run);
    const runCtx = withStoredRisks(ctx, facts);
    for (const check of options.checks ?? AUDIT_CHECKS) violations.push(...check.check(facts, runCtx));
  }
  return { runs: runs.length, violations };
}

export function formatViolation(v: Violation): string {
  const where = [v.runId, v.planVersion === null ? null : `v${v.planVersion}`, v.stepId].filter(Boolean).join(' ');
  return `${where}  [${v.check}]  ${v.message}`;
}
