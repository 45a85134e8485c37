/** bench/replicas.ts's probes: what the server's backends are doing (BENCH_WAITS=1), and the statements a step (BENCH_STATEMENTS=1). */
import postgres from 'postgres';

interface StatementsOf {
  /** Statements the replicas sent a step, by text. */
  sentPerStep: Map<string, number>;
}

/**
 * BENCH_WAITS=1: what the server's backends for the bench's database are doing, sampled from pg_stat_activity
 * every 10 ms while the replicas work: running, idle (the replica holds the connection without a statement),
 * or waiting, and for what (a row lock, a lightweight lock, the WAL, the client).
 */
export function sampleWaits(url: string): { stop(): Promise<string> } {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  const counts = new Map<string, number>();
  let samples = 0;
  let stopped = false;
  const sampling = (async () => {
    while (!stopped) {
      const rows = await sql<{ what: string; n: number }[]>`
        select case when state = 'active' and wait_event is null then 'running'
                    when state = 'active' then wait_event_type || ':' || wait_event
                    else coalesce(state, '?') end as what, count(*)::int as n
        from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend' group by 1`;
      samples++;
      for (const { what, n } of rows) counts.set(what, (counts.get(what) ?? 0) + n);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await sampling;
      await sql.end();
      return [...counts]
        .sort((a, b) => b[1] - a[1])
        .map(([what, n]) => `${what} ${(n / samples).toFixed(1)}`)
        .join(', ');
    },
  };
}

export function sentPerStep(reports: readonly { sent: Record<string, number> }[], steps: number): Map<string, number> {
  const perStep = new Map<string, number>();
  for (const report of reports)
    for (const [text, times] of Object.entries(report.sent)) {
      const shape = text.replace(/\$\d+(, \$\d+)+/g, '$n…').replace(/\s+/g, ' ');
      perStep.set(shape, (perStep.get(shape) ?? 0) + times / steps);
    }
  return perStep;
}

/** BENCH_STATEMENTS=1: the statements a step with 2 replicas and with 4, by text, most different first. */
export function printStatementsAside(two: StatementsOf, four: StatementsOf): void {
  const total = (m: StatementsOf) => [...m.sentPerStep.values()].reduce((sum, n) => sum + n, 0);
  console.log(`statements a step: 2 replicas ${total(two).toFixed(2)}, 4 replicas ${total(four).toFixed(2)}`);
  const texts = new Set([...two.sentPerStep.keys(), ...four.sentPerStep.keys()]);
  const rows = [...texts].map((text) => [text, two.sentPerStep.get(text) ?? 0, four.sentPerStep.get(text) ?? 0] as const);
  for (const [text, a, b] of rows.sort((x, y) => Math.abs(y[2] - y[1]) - Math.abs(x[2] - x[1])).slice(0, 15))
    console.log(`${a.toFixed(3).padStart(7)} ${b.toFixed(3).padStart(7)}  ${text.slice(0, 140)}`);
}
