/** OpeningsPort's `clockFactsOf` in memory: the same waits and step spans the store's one statement reads (run-clock-repository.ts). */
import type { RunClockFacts, TimeSpan } from '../../model/budgets.ts';
import type { RunStore } from '../../ports/run-store.ts';

type Reads = Pick<RunStore, 'listEscalations' | 'listQuestions' | 'listConfirmations' | 'listPlanVersions' | 'listApprovals' | 'listAttempts'>;

export async function memoryClockFacts(reads: Reads, runIds: readonly string[]): Promise<Map<string, RunClockFacts>> {
  const facts = new Map<string, RunClockFacts>();
  for (const runId of new Set(runIds)) {
    const waits = await waitsOf(reads, runId);
    if (waits.length === 0) continue;
    const working = (await reads.listAttempts(runId)).map((attempt) => ({ from: attempt.startedAt, to: attempt.finishedAt }));
    facts.set(runId, { waits, working });
  }
  return facts;
}

async function waitsOf(reads: Reads, runId: string): Promise<TimeSpan[]> {
  const [escalations, questions, confirmations, versions, approvals] = await Promise.all([
    reads.listEscalations(runId),
    reads.listQuestions(runId),
    reads.listConfirmations(runId),
    reads.listPlanVersions(runId),
    reads.listApprovals(runId),
  ]);
  const earliest = (dates: readonly Date[]) => (dates.length ? new Date(Math.min(...dates.map((date) => date.getTime()))) : null);
  // An unanswered question or Confirm stopped holding the run when another version replaced its own.
  const replacedAfter = (version: number | null, since: Date) =>
    earliest(versions.filter((v) => v.version > (version ?? 0) && v.createdAt >= since).map((v) => v.createdAt));
  const approvedVersions = approvals.filter((a) => a.decision === 'approved').map((a) => a.planVersion);
  const firstApproved = approvedVersions.length ? Math.min(...approvedVersions) : Infinity;
  return [
    ...escalations.map((e) => ({ from: e.createdAt, to: e.resolvedAt })),
    ...questions.map((q) => ({ from: q.createdAt, to: q.answeredAt ?? replacedAfter(q.planVersion, q.createdAt) })),
    ...confirmations.map((c) => ({ from: c.createdAt, to: c.decidedAt ?? replacedAfter(c.planVersion, new Date(0)) })),
    ...versions
      .filter((v) => v.version > firstApproved)
      .map((v) => ({
        from: v.createdAt,
        to: earliest(approvals.filter((a) => a.planVersion === v.version).map((a) => a.createdAt)) ?? replacedAfter(v.version, new Date(0)),
      })),
  ];
}
