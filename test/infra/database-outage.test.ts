/**
 * PostgreSQL goes away mid-run and comes back (CONTRACT §6, storage unavailable): a TCP proxy between
 * Tandem and the server resets every connection and refuses new ones, right after a GitHub write took
 * effect and before Tandem could record it. Meanwhile Slack's requests get a 5xx (Slack retries them),
 * `/healthz` answers 503 with the reason and `/metrics` counts the failures. When the line is back the run
 * goes on by itself: the write is reconciled (one issue, not two), the run ends with its summary, and
 * the request refused during the cut is handled once when Slack sends it again. PostgreSQL only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { startTcpProxy, type TcpProxy } from '../fakes/tcp-proxy.ts';
import { health, metricsText, startOutageStack, summarised, TASK, type OutageStack } from './outage-stack.ts';

const serverUrl = process.env.TEST_DATABASE_URL;
if (!serverUrl) console.log('test/infra/database-outage.test.ts skipped: set TEST_DATABASE_URL to a PostgreSQL server to run it');

describe.skipIf(!serverUrl)('the database goes away mid-run and comes back', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let stack: OutageStack;

  beforeAll(async () => {
    database = await openTestDatabase('postgres');
    const url = new URL(database.url!);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    stack = await startOutageStack({ DATABASE_URL: proxy.urlFor(database.url!) });
  }, 60_000);

  afterAll(async () => {
    proxy?.restore();
    await stack?.close();
    await proxy?.close();
    await database?.destroy();
  });

  it('refuses Slack with a 5xx and reports 503 while cut, then finishes the run once without writing twice', async () => {
    expect((await health(stack.baseUrl)).status).toBe(200);
    let cut!: () => void;
    const wasCut = new Promise<void>((resolve) => (cut = resolve));
    // The issue is created on GitHub, then the database goes before Tandem hears the answer.
    stack.github.fault({
      method: 'POST',
      path: /\/repos\/acme\/api\/issues$/,
      afterEffect: true,
      beforeAnswer: () => {
        proxy.cut();
        cut();
      },
    });
    const mention = stack.driver.mention({ channel: 'C1', user: 'U1', text: TASK });
    expect((await mention).status).toBe(200);
    await stack.approve(mention.ts);
    await wasCut;

    // A mention during the cut is refused, so Slack sends it again later; nothing acknowledged is lost.
    const during = stack.driver.mention({ channel: 'C1', user: 'U1', text: TASK });
    expect((await during).status).toBeGreaterThanOrEqual(500);
    const down = await health(stack.baseUrl);
    expect(down.status).toBe(503);
    expect(down.body.reason).toMatch(/database is unreachable/);
    expect(down.body.reason).not.toContain(database.url!);
    expect(await metricsText(stack.baseUrl)).toMatch(/tandem_store_errors_total\{kind="unreachable"\} [1-9]/);
    // Long enough for the run to have failed to record its step more than once.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(stack.issues()).toBe(1);

    proxy.restore();
    await stack.slack.waitUntil(() => summarised(stack.thread(mention.ts)), 30_000, 'the summary after the database came back');
    expect(stack.issues()).toBe(1);
    expect(stack.thread(mention.ts).filter((m) => m.text.startsWith(':white_check_mark: Succeeded'))).toHaveLength(1);
    expect(stack.thread(mention.ts).some((m) => m.text.startsWith('Succeeded:'))).toBe(true);
    const [run] = await stack.runtime.store.listRuns({ limit: 5 });
    expect(run?.status).toBe('succeeded');
    expect((await stack.runtime.store.listEvents(run!.id)).some((event) => event.type === 'step-reconciled')).toBe(true);

    // Healthy again once statements succeed.
    let after = await health(stack.baseUrl);
    for (let tries = 0; after.status !== 200 && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await health(stack.baseUrl);
    }
    expect(after).toEqual({ status: 200, body: { ok: true } });

    // Slack's retry of the refused mention starts its run, once.
    const retried = await stack.driver.event(
      { type: 'app_mention', user: 'U1', text: TASK, ts: during.ts, channel: 'C1', event_ts: during.ts },
      { eventId: during.eventId, retryNum: 1 },
    );
    expect(retried.status).toBe(200);
    await stack.slack.waitUntil(() => stack.planIn(during.ts) !== undefined, 20_000, 'the plan of the retried mention');
    expect(stack.thread(during.ts).filter((m) => m.text === stack.planIn(during.ts)!.text)).toHaveLength(1);
  }, 90_000);
});
