/**
 * PostgreSQL itself restarts mid-run (a maintenance restart, a failover to the same address): a private
 * server in a temporary folder is stopped while a run waits, kept down a few seconds, and started
 * again. Tandem is not restarted: `/healthz` says 503 while the server is down, the run goes on by itself
 * once it is back, and ends once, with one GitHub write. Needs the machine's PostgreSQL programs and root
 * (to run them as `postgres`); skipped with a message elsewhere.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startPrivatePostgres, type PrivatePostgres } from '../helpers/private-postgres.ts';
import { health, startOutageStack, summarised, TASK, type OutageStack } from './outage-stack.ts';

const server = await startPrivatePostgres().catch(() => undefined);
if (!server) console.log('test/infra/postgres-restart.test.ts skipped: needs root and PostgreSQL programs under /usr/lib/postgresql');

describe.skipIf(!server)('PostgreSQL restarts under a running Tandem', () => {
  let stack: OutageStack;
  const postgres = server as PrivatePostgres;

  beforeAll(async () => {
    stack = await startOutageStack({ DATABASE_URL: postgres.url });
  }, 60_000);

  afterAll(async () => {
    await stack?.close();
    postgres.destroy();
  });

  it('goes on by itself once the server is back: 503 meanwhile, one write, one summary', async () => {
    const mention = stack.driver.mention({ channel: 'C1', user: 'U1', text: TASK });
    expect((await mention).status).toBe(200);
    await stack.approve(mention.ts);
    await stack.slack.waitUntil(() => stack.thread(mention.ts).some((m) => m.text.startsWith('Running')), 20_000, 'the board');
    postgres.stop();
    const down = await health(stack.baseUrl);
    expect(down.status).toBe(503);
    expect(down.body.reason).toMatch(/database is unreachable/);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    postgres.start();
    await stack.slack.waitUntil(() => summarised(stack.thread(mention.ts)), 30_000, 'the summary after the restart');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(stack.issues()).toBe(1);
    expect(stack.thread(mention.ts).filter((m) => m.text.startsWith(':white_check_mark: Succeeded'))).toHaveLength(1);
    expect(await health(stack.baseUrl)).toEqual({ status: 200, body: { ok: true } });
  }, 90_000);

  it('a Tandem started while the server is down waits for it: its port answers 503 meanwhile, then it works as usual', async () => {
    postgres.stop();
    const port = await freePort();
    const starting = startOutageStack({ DATABASE_URL: postgres.url }, {}, { port });
    try {
      const held = await until(async () => {
        const answer = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
        return answer?.status === 503 ? ((await answer.json()) as unknown) : undefined;
      });
      expect(held).toEqual({ ok: false, store: 'unreachable' });
      const signed = await fetch(`http://127.0.0.1:${port}/slack/events`, { method: 'POST', body: '{}' });
      expect(signed.status).toBe(503);
    } finally {
      postgres.start();
    }
    const late = await starting;
    try {
      expect(await health(late.baseUrl)).toEqual({ status: 200, body: { ok: true } });
      const mention = late.driver.mention({ channel: 'C1', user: 'U1', text: TASK });
      expect((await mention).status).toBe(200);
      await late.slack.waitUntil(() => late.planIn(mention.ts) !== undefined, 20_000, 'the plan');
    } finally {
      await late.close();
    }
  }, 90_000);
});

/** The first answer `probe` gives, asked every 100 ms for up to 20 s. */
async function until<T>(probe: () => Promise<T | undefined>): Promise<T> {
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 100))) {
    const answer = await probe();
    if (answer !== undefined) return answer;
  }
  throw new Error('the held port never answered 503');
}
