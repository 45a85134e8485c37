/** OpeningsPort in memory: each run's opening read from the other ports, as a driver would read it alone. */
import type { OpeningsPort, PassOpening } from '../../ports/openings.ts';
import type { RunStore } from '../../ports/run-store.ts';
import type { SummaryPort } from '../../ports/summary.ts';
import { memoryClockFacts } from './run-clock.ts';

export function memoryOpenings(reads: Omit<RunStore, keyof OpeningsPort | keyof SummaryPort>): OpeningsPort {
  const openingOf = async (runId: string): Promise<PassOpening | undefined> => {
    const run = await reads.getRun(runId);
    if (!run) return undefined;
    if (run.status !== 'executing' || run.currentPlanVersion === null) return { run, version: undefined, approvals: [], steps: [], escalations: [], tokens: 0 };
    const [version, approvals, steps, escalations, usage] = await Promise.all([
      reads.getPlanVersion(run.id, run.currentPlanVersion),
      reads.listApprovals(run.id),
      reads.listSteps(run.id),
      reads.listEscalations(run.id),
      reads.usageTotals(run.id),
    ]);
    return {
      run,
      version,
      approvals,
      steps,
      escalations: escalations.flatMap(({ planVersion, stepId, status }) => (status === 'open' ? [{ planVersion, stepId, status }] : [])),
      tokens: usage.inputTokens + usage.outputTokens,
    };
  };
  return {
    async passOpenings(runIds) {
      const openings = await Promise.all([...new Set(runIds)].map(openingOf));
      return openings.filter((opening) => opening !== undefined);
    },
    async tokensOf(runIds) {
      const totals = await Promise.all(runIds.map(async (runId) => [runId, await reads.usageTotals(runId)] as const));
      return new Map(totals.map(([runId, usage]) => [runId, usage.inputTokens + usage.outputTokens]));
    },
    clockFactsOf: (runIds) => memoryClockFacts(reads, runIds),
  };
}
