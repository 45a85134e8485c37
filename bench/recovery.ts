/**
 * How soon a run goes on by itself once its store is back (issue 33: "within 5 s of the database coming
 * back"). Each round starts a run (mention → Approve → wait, file a GitHub issue, wait) and breaks the store
 * at the worst moment: right after GitHub created the issue and before Tandem heard, so the run cannot
 * record its step until the store is back. The store stays broken 3 s, then comes back; the figure is the
 * time from that moment to the run's next call to Slack (the board moving on), and to `/healthz` 200.
 * Faults: PostgreSQL cut by a TCP proxy (every connection reset, new ones refused), PostgreSQL restarted
 * (`pg_ctl` on a private server; needs root and the machine's PostgreSQL programs), and PGlite's disk full
 * (a tmpfs filled up; needs root). Each round also checks the run ended once, with one issue.
 * Run: tsx bench/recovery.ts [rounds]        (TEST_DATABASE_URL for the PostgreSQL cut)
 * Bounded: each round waits at most 60 s; everything listens on 127.0.0.1.
 */
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTcpProxy } from '../test/fakes/tcp-proxy.ts';
import { openTestDatabase } from '../test/helpers/database.ts';
import { startPrivatePostgres } from '../test/helpers/private-postgres.ts';
import { mountTmpfs } from '../test/helpers/tmpfs.ts';
import { health, startOutageStack, summarised, TASK, type OutageStack } from '../test/infra/outage-stack.ts';
import { atMost, printFigures, type Figure } from './support/figures.ts';

const ROUNDS = Number(process.argv[2] ?? 3);
const DOWN_MS = 3_000;
const GOAL_MS = 5_000;

interface Fault {
  name: string;
  break(): void;
  mend(): void;
}

interface Round {
  blocked: boolean;
  runMovedMs: number;
  healthyMs: number;
  once: boolean;
}

async function until(predicate: () => boolean | Promise<boolean>, ms: number): Promise<number | undefined> {
  const started = Date.now();
  while (!(await predicate())) {
    if (Date.now() - started > ms) return undefined;
    await sleep(25);
  }
  return Date.now() - started;
}

async function oneRound(stack: OutageStack, fault: Fault): Promise<Round> {
  const issuesBefore = stack.issues();
  let broken!: () => void;
  const wasBroken = new Promise<void>((resolve) => (broken = resolve));
  stack.github.fault({
    method: 'POST',
    path: /\/repos\/acme\/api\/issues$/,
    afterEffect: true,
    beforeAnswer: () => {
      fault.break();
      broken();
    },
  });
  const mention = stack.driver.mention({ channel: 'C1', user: 'U1', text: TASK });
  if ((await mention).status !== 200) throw new Error('the mention was refused before any fault');
  await stack.approve(mention.ts);
  await wasBroken;
  await sleep(DOWN_MS);
  const callsBefore = stack.slack.calls.length;
  // A fault that did not stop the run (PGlite wrote into pages it had) has nothing to recover from.
  const blocked = !summarised(stack.thread(mention.ts));
  fault.mend();
  const touches = (index: number) => {
    const call = stack.slack.calls[index]!;
    return (
      call.method.startsWith('chat.') &&
      (call.params.thread_ts === mention.ts || stack.slack.model.findMessage('C1', call.params.ts ?? '')?.threadTs === mention.ts)
    );
  };
  const moved = await until(() => stack.slack.calls.slice(callsBefore).some((_call, i) => touches(callsBefore + i)), 60_000);
  const healthy = await until(async () => (await health(stack.baseUrl)).status === 200, 60_000);
  await until(() => summarised(stack.thread(mention.ts)), 60_000);
  await sleep(1_000);
  const summaries = stack.thread(mention.ts).filter((m) => m.text.startsWith(':white_check_mark: Succeeded')).length;
  return {
    blocked,
    runMovedMs: moved ?? Infinity,
    healthyMs: healthy === undefined ? Infinity : healthy,
    once: summaries === 1 && stack.issues() === issuesBefore + 1,
  };
}

async function measure(name: string, stack: OutageStack, fault: Fault): Promise<Figure[]> {
  const rounds: Round[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const result = await oneRound(stack, fault);
    console.log(
      `${name} round ${round + 1}: run ${result.blocked ? 'blocked' : 'NOT blocked by the fault'}, moved ${result.runMovedMs} ms after, /healthz 200 ${result.healthyMs} ms after, ended once: ${result.once}`,
    );
    rounds.push(result);
  }
  const worstMoved = Math.max(0, ...rounds.filter((r) => r.blocked).map((r) => r.runMovedMs));
  const worstHealthy = Math.max(...rounds.map((r) => r.healthyMs));
  const notOnce = rounds.filter((r) => !r.once).length;
  return [
    {
      name: `${name}: run moves again after the store is back, max of ${rounds.filter((r) => r.blocked).length} blocked runs`,
      value: worstMoved,
      unit: 'ms',
      ...atMost(GOAL_MS)(worstMoved),
    },
    { name: `${name}: /healthz 200 after the store is back, max of ${ROUNDS}`, value: worstHealthy, unit: 'ms', ...atMost(GOAL_MS)(worstHealthy) },
    { name: `${name}: runs not ended exactly once`, value: notOnce, unit: '', ...atMost(0)(notOnce) },
  ];
}

const figures: Figure[] = [];

if (process.env.TEST_DATABASE_URL) {
  const database = await openTestDatabase('postgres');
  const url = new URL(database.url!);
  const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
  const stack = await startOutageStack({ DATABASE_URL: proxy.urlFor(database.url!) });
  try {
    figures.push(...(await measure('postgres cut', stack, { name: 'cut', break: () => proxy.cut(), mend: () => proxy.restore() })));
  } finally {
    proxy.restore();
    await stack.close();
    await proxy.close();
    await database.destroy();
  }
} else console.log('postgres cut skipped: set TEST_DATABASE_URL');

const server = await startPrivatePostgres().catch(() => undefined);
if (server) {
  const stack = await startOutageStack({ DATABASE_URL: server.url });
  try {
    figures.push(...(await measure('postgres restart', stack, { name: 'restart', break: () => server.stop(), mend: () => server.start() })));
  } finally {
    await stack.close();
    server.destroy();
  }
} else console.log('postgres restart skipped: needs root and PostgreSQL programs under /usr/lib/postgresql');

const disk = mountTmpfs(300);
if (disk) {
  const stack = await startOutageStack({ DATA_DIR: path.join(disk.dir, 'data') });
  try {
    figures.push(...(await measure('pglite disk full', stack, { name: 'full', break: () => disk.fill(), mend: () => disk.free() })));
  } finally {
    disk.free();
    await stack.close();
    disk.unmount();
  }
} else console.log('pglite disk full skipped: mounting a tmpfs needs root');

printFigures('recovery', figures);
process.exit(figures.some((figure) => figure.met === false) ? 1 : 0);
