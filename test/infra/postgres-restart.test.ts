/**
 * PostgreSQL itself restarts mid-run (a maintenance restart, a failover to the same address): a private
 * server in a temporary folder is stopped while a run waits, kept down a few seconds, and started
 * again. Tandem is not restarted: `/healthz` says 503 while the server is down, the run goes on by itself
 * once it is back, and ends once, with one GitHub write. Needs the machine's PostgreSQL programs and root
 * (to run them as `postgres`); skipped with a message elsewhere.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivatePostgres, type PrivatePostgres } from '../helpers/private-postgres.ts';
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
});
