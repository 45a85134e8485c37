/** RunsPort in memory: the compare-and-set of runs-repository.ts and finishRunRecord (outbox-repository.ts). */
import type { RunRecord, RunsPort } from '../../ports/runs.ts';
import { oweMessages } from './outbox.ts';
import { copy, json, leaseEnd, maybeText, newHexId, newId, text, type MemoryTables, type RunRow } from './tables.ts';

/** Newest first, as `order by created_at desc, id desc`. */
const newestFirst = (a: RunRow, b: RunRow) => b.tick - a.tick || b.run.id.localeCompare(a.run.id);

/** Every write of the run's status, whichever method makes it, is told to `tables.onRunMove`. */
function watchStatus(tables: MemoryTables, run: RunRecord): void {
  let status = run.status;
  Object.defineProperty(run, 'status', {
    enumerable: true,
    get: () => status,
    set: (to: RunRecord['status']) => {
      if (to !== status) tables.onRunMove?.(run.id, status, to);
      status = to;
    },
  });
}

export function memoryRuns(tables: MemoryTables): RunsPort {
  return {
    async createRun(input) {
      const write = tables.begin();
      if (input.requestId !== undefined && [...tables.runs.values()].some((row) => row.requestId === input.requestId)) {
        throw new Error(`duplicate key value violates unique constraint "runs_request_id_unique"`);
      }
      const run: RunRecord = {
        id: newId('run'),
        task: text(input.task),
        requester: text(input.requester),
        conversation: { channel: text(input.conversation.channel), threadTs: text(input.conversation.threadTs) },
        origin: input.origin,
        status: 'planning',
        currentPlanVersion: null,
        replans: 0,
        boardRef: null,
        summary: null,
        createdAt: write.now,
        updatedAt: write.now,
        finishedAt: null,
        trace: { traceId: newHexId(16), rootSpanId: newHexId(8) },
      };
      const row: RunRow = {
        run,
        requestId: input.requestId ?? null,
        eventSeq: 0,
        leaseOwner: input.lease?.owner ?? null,
        leaseUntil: input.lease ? leaseEnd(write, input.lease.leaseMs) : null,
        tick: write.tick,
      };
      watchStatus(tables, run);
      tables.runs.set(run.id, row);
      if (input.created) tables.appendEvent(row, { type: 'run-created', data: input.created }, write);
      return copy(run);
    },
    async getRun(runId) {
      return copy(tables.runs.get(runId)?.run);
    },
    async findRunByRequest(requestId) {
      return copy([...tables.runs.values()].find((row) => row.requestId === requestId)?.run);
    },
    async findRunByConversation(conversation) {
      const found = [...tables.runs.values()]
        .filter((row) => row.run.conversation.channel === conversation.channel && row.run.conversation.threadTs === conversation.threadTs)
        .sort(newestFirst);
      return copy(found[0]?.run);
    },
    async updateRun(runId, patch) {
      const write = tables.begin();
      const row = tables.runs.get(runId);
      if (!row) throw new Error(`run ${runId} not found`);
      // As drizzle's update: a member left undefined is not written.
      const { summary, boardRef, ...rest } = patch;
      for (const [key, value] of Object.entries(rest)) if (value !== undefined) Object.assign(row.run, { [key]: value });
      row.run.updatedAt = write.now;
      if (summary !== undefined) row.run.summary = json(summary);
      if (boardRef !== undefined) row.run.boardRef = maybeText(boardRef);
      return copy(row.run);
    },
    async transitionRun(runId, from, to) {
      const write = tables.begin();
      const row = tables.runs.get(runId);
      if (!row || !from.includes(row.run.status)) return false;
      Object.assign(row.run, { status: to, updatedAt: write.now });
      return true;
    },
    async listRuns(filter) {
      return [...tables.runs.values()]
        .filter((row) => (!filter.requester || row.run.requester === filter.requester) && (!filter.channel || row.run.conversation.channel === filter.channel))
        .filter((row) => !filter.statuses || filter.statuses.includes(row.run.status))
        .sort(newestFirst)
        .slice(0, filter.limit)
        .map((row) => copy(row.run));
    },
    async finishRun(input) {
      const write = tables.begin();
      const row = tables.runs.get(input.runId);
      if (!row || !input.from.includes(row.run.status) || row.run.finishedAt !== null) return undefined;
      Object.assign(row.run, { status: input.status, summary: json(input.summary), finishedAt: input.finishedAt, updatedAt: write.now });
      tables.appendEvent(row, input.event, write);
      oweMessages(tables, { runId: row.run.id, owe: input.owe, owner: input.owner, leaseMs: input.leaseMs }, write);
      return copy(row.run);
    },
  };
}
