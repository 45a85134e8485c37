/**
 * A connection to PostgreSQL is reset while it is new: its first statement reached the server and the answer never
 * came back. The bot must take that as it takes any other reset (the request involved is answered 5xx or retried,
 * the run goes on) and must not end: before, the driver's lookup of array types on each new connection failed as a
 * rejection nobody awaited, which ends a Node process (and fails this file). PostgreSQL only (a TCP proxy between
 * Tandem and the server resets the connection).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTcpProxy, type TcpProxy } from '../fakes/tcp-proxy.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { startOutageStack, summarised, TASK, type OutageStack } from './outage-stack.ts';

const serverUrl = process.env.TEST_DATABASE_URL;
if (!serverUrl) console.log('test/infra/new-connection-reset.test.ts skipped: set TEST_DATABASE_URL to a PostgreSQL server to run it');

describe.skipIf(!serverUrl)('a connection reset on its first statement', () => {
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
    await stack?.close();
    await proxy?.close();
    await database?.destroy();
  });

  it('leaves the bot up, and a run started after it ends once', async () => {
    // Every open connection is cut, so the next statement is the first of a new connection: it is reset as the
    // server answers.
    proxy.cut();
    proxy.restore();
    const reset = proxy.resetAfterAnswer(() => true);
    const mention = stack.driver.mention({ channel: 'C1', user: 'U1', text: TASK });
    const first = await Promise.race([reset, sleep(20_000).then(() => undefined)]);
    expect(first, 'a statement on a new connection').toBeDefined();
    // Slack sends the same event again until it gets a 2xx.
    let status = (await mention).status;
    const event = { type: 'app_mention', user: 'U1', text: TASK, ts: mention.ts, channel: 'C1', event_ts: mention.ts };
    for (let retryNum = 1; status !== 200 && retryNum <= 3; retryNum += 1) {
      await sleep(500);
      status = (await stack.driver.event(event, { eventId: mention.eventId, retryNum })).status;
    }
    expect(status).toBe(200);
    await stack.approve(mention.ts);
    await stack.slack.waitUntil(() => summarised(stack.thread(mention.ts)), 30_000, 'the run’s summary');
    expect(stack.thread(mention.ts).filter((m) => m.text.startsWith(':white_check_mark: Succeeded'))).toHaveLength(1);
    expect(stack.issues()).toBe(1);
    const health = await fetch(`${stack.baseUrl}/healthz`);
    expect(health.status).toBe(200);
  }, 90_000);
});
