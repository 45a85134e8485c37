/** SummaryPort in memory: what summary-repository.ts reads in one statement each, read here from the other ports in one turn. */
import type { OpeningsPort } from '../../ports/openings.ts';
import type { RunStore } from '../../ports/run-store.ts';
import type { SummaryPort } from '../../ports/summary.ts';
import { readEvent } from './events.ts';
import type { MemoryTables } from './tables.ts';

/** `reads` are the store's other ports: each read below is synchronous up to its answer, so together they see one moment. */
export function memorySummary(tables: MemoryTables, reads: Omit<RunStore, keyof SummaryPort | keyof OpeningsPort>): SummaryPort {
  const ofType = (runId: string, type: string) => (tables.events.get(runId) ?? []).filter((event) => event.type === type);
  return {
    async summarySource(runId) {
      const fallback = ofType(runId, 'planner-fallback').at(-1);
      const evaluations = ofType(runId, 'step-evaluated').map(readEvent);
      const [run, steps, versions, usage, usageByModel, confirmations] = await Promise.all([
        reads.getRun(runId),
        reads.listSteps(runId),
        reads.listPlanVersions(runId),
        reads.usageTotals(runId),
        reads.usageByModel(runId),
        reads.listConfirmations(runId),
      ]);
      if (!run) return undefined;
      const lastFallback = fallback ? readEvent(fallback) : null;
      return { run, steps, versions, usage, usageByModel, lastFallback, evaluations, confirmsAsked: confirmations.length > 0 };
    },
    async boardSource(runId) {
      const evaluations = ofType(runId, 'step-evaluated').map(readEvent);
      const [run, steps, versions] = await Promise.all([reads.getRun(runId), reads.listSteps(runId), reads.listPlanVersions(runId)]);
      if (!run) return undefined;
      const ran = steps.reduce((latest, step) => (step.kind === 'forward' ? Math.max(latest, step.planVersion) : latest), 0);
      return { run, steps, ran: versions.find((version) => version.version === ran), evaluations };
    },
  };
}
