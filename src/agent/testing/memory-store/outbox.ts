/** OutboxPort in memory: outbox-repository.ts and reminders-repository.ts. */
import type { NewOwedMessage, OutboxPort, OwedMessage } from '../../ports/outbox.ts';
import { byTick, expired, json, leaseEnd, text, type MemoryTables, type OutboxRow, type Write } from './tables.ts';

/** Records owed messages held by `owner`; the same id twice is one message (`on conflict do nothing`). */
export function oweMessages(
  tables: MemoryTables,
  input: { runId: string; owe: readonly NewOwedMessage[]; owner: string; leaseMs: number },
  write: Write,
): void {
  if (input.owe.length) tables.runRow(input.runId);
  for (const message of input.owe) {
    const id = text(message.id);
    if (tables.outbox.has(id)) continue;
    tables.outbox.set(id, {
      id,
      runId: input.runId,
      kind: text(message.kind),
      payload: json(message.payload),
      status: 'pending',
      attempts: 0,
      leaseOwner: input.owner,
      leaseUntil: leaseEnd(write, input.leaseMs),
      createdAt: write.now,
      tick: write.tick,
    });
  }
}

const owed = (row: OutboxRow): OwedMessage => ({
  id: row.id,
  runId: row.runId,
  kind: row.kind,
  payload: json(row.payload),
  attempts: row.attempts,
  createdAt: row.createdAt,
});

export function memoryOutbox(tables: MemoryTables): OutboxPort {
  return {
    async owe(input) {
      oweMessages(tables, input, tables.begin());
    },
    async claimOwed(input) {
      const write = tables.begin();
      // As claimOwed on PostgreSQL: `all` takes what another owner id holds; a run's own are ours or nobody's; else only expired ones.
      const free = (row: OutboxRow) =>
        expired(row.leaseUntil, write) ||
        (input.all ? row.leaseOwner !== null && row.leaseOwner !== input.owner : input.runId !== undefined && row.leaseOwner === input.owner);
      const taken = [...tables.outbox.values()]
        .filter((row) => row.status === 'pending' && (input.runId === undefined || row.runId === input.runId) && free(row))
        .sort((a, b) => byTick(a, b) || a.id.localeCompare(b.id))
        .slice(0, Math.max(0, input.limit));
      for (const row of taken) Object.assign(row, { leaseOwner: input.owner, leaseUntil: leaseEnd(write, input.leaseMs), attempts: row.attempts + 1 });
      return taken.map(owed);
    },
    async markOwedSent(id) {
      const row = tables.outbox.get(id);
      if (row) Object.assign(row, { status: 'sent', leaseUntil: null });
    },
    async deferOwed(input) {
      const write = tables.begin();
      const row = tables.outbox.get(input.id);
      if (row?.status === 'pending') row.leaseUntil = leaseEnd(write, input.retryInMs);
    },
    async claimReminder(input) {
      tables.runRow(input.runId);
      const key = JSON.stringify([input.runId, input.kind, input.key]);
      if (tables.reminders.has(key)) return false;
      tables.reminders.add(key);
      return true;
    },
  };
}
