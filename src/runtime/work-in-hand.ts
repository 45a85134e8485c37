import { sql } from 'drizzle-orm';
import { Gauge, type Registry } from 'prom-client';
import type { Agent } from '../agent/agent.ts';
import type { Database } from '../store/index.ts';
import { rawRows } from '../store/engine/raw-rows.ts';

/**
 * `tandem_work_in_hand{kind}` on /metrics, read when scraped: what is still to be done without anyone acting.
 * - `background`: 1 while this process is planning, driving a run or delivering (the agent's background work).
 * - `inbox`: Slack requests acknowledged and not yet handled, on the whole store.
 * - `owed`: messages runs owe their threads and Slack does not have yet, on the whole store.
 * All three at 0: nothing more happens until a person, a schedule or a housekeeping sweep acts. An operator reads
 * it as a backlog; the black-box tests wait for it instead of sleeping to show that nothing more is posted.
 */
export function workInHandGauge(registry: Registry, agent: Pick<Agent, 'idle'>, database: Pick<Database, 'db'>): Gauge<'kind'> {
  return new Gauge({
    name: 'tandem_work_in_hand',
    help: 'Work under way or waiting to be done without a person: background work in this process, unhandled requests, undelivered owed messages',
    labelNames: ['kind'],
    registers: [registry],
    async collect() {
      const [background, [counts]] = await Promise.all([
        busy(agent),
        rawRows<{ inbox: number | string; owed: number | string }>(
          database.db,
          sql`select (select count(*) from slack_inbox where status = 'pending') as inbox,
                     (select count(*) from outbox where status = 'pending') as owed`,
        ),
      ]);
      this.set({ kind: 'background' }, background);
      this.set({ kind: 'inbox' }, Number(counts?.inbox ?? 0));
      this.set({ kind: 'owed' }, Number(counts?.owed ?? 0));
    },
  });
}

/** 1 while the agent has background work: idle() settles at once (before the next turn of the event loop) only when it has none. */
async function busy(agent: Pick<Agent, 'idle'>): Promise<number> {
  let idle = false;
  void agent.idle().then(() => (idle = true));
  await new Promise((resolve) => setImmediate(resolve));
  return idle ? 0 : 1;
}
