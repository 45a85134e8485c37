import { sql } from 'drizzle-orm';
import { Gauge, type Registry } from 'prom-client';
import type { Agent } from '../agent/agent.ts';
import { withStoreDeadline, type Database } from '../store/index.ts';
import { rawRows } from '../store/engine/raw-rows.ts';

const STORE_DEADLINE_MS = 1_000;

/**
 * `tandem_work_in_hand{kind}` on /metrics, read when scraped: what is still to be done without anyone acting.
 * - `background`: 1 while this process is planning, driving a run or delivering (the agent's background work).
 * - `inbox`: Slack requests acknowledged and not yet handled, on the whole store.
 * - `owed`: messages runs owe their threads and Slack does not have yet, on the whole store.
 * All three at 0: nothing more happens until a person, a schedule or a housekeeping sweep acts; while the store
 * does not answer, `inbox` and `owed` are left out. An operator reads it as a backlog; the black-box tests wait
 * for it instead of sleeping to show that nothing more is posted.
 */
export function workInHandGauge(registry: Registry, agent: Pick<Agent, 'idle'>, database: Pick<Database, 'db'>): Gauge<'kind'> {
  return new Gauge({
    name: 'tandem_work_in_hand',
    help: 'Work under way or waiting to be done without a person: background work in this process, unhandled requests, undelivered owed messages',
    labelNames: ['kind'],
    registers: [registry],
    async collect() {
      const [background, counts] = await Promise.all([busy(agent), storeCounts(database).catch(() => undefined)]);
      this.set({ kind: 'background' }, background);
      // A store that does not answer leaves the two out: /metrics still answers, and no stale count reads as idle.
      if (!counts) return void (this.remove({ kind: 'inbox' }), this.remove({ kind: 'owed' }));
      this.set({ kind: 'inbox' }, counts.inbox);
      this.set({ kind: 'owed' }, counts.owed);
    },
  });
}

/** Both counts in one statement, within a second (a scrape must not hang on a store that is down). */
async function storeCounts(database: Pick<Database, 'db'>): Promise<{ inbox: number; owed: number }> {
  const statement = rawRows<{ inbox: number | string; owed: number | string }>(
    database.db,
    sql`select (select count(*) from slack_inbox where status = 'pending') as inbox,
               (select count(*) from outbox where status = 'pending') as owed`,
  );
  const [counts] = await withStoreDeadline(statement, STORE_DEADLINE_MS, 'counting the work in hand');
  return { inbox: Number(counts?.inbox ?? 0), owed: Number(counts?.owed ?? 0) };
}

/** 1 while the agent has background work: idle() settles at once (before the next turn of the event loop) only when it has none. */
async function busy(agent: Pick<Agent, 'idle'>): Promise<number> {
  let idle = false;
  void agent.idle().then(() => (idle = true));
  await new Promise((resolve) => setImmediate(resolve));
  return idle ? 0 : 1;
}
