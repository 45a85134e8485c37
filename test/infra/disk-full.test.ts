/**
 * PGlite's disk fills up while Tandem runs: a Slack request that cannot be stored gets a 5xx (Slack sends
 * it again), `/healthz` answers 503 saying the database cannot be written and `/metrics` counts it; once
 * there is room again, writes succeed, `/healthz` is 200 and Slack's redelivery starts the run. Needs a
 * tmpfs of its own (root); skipped with a message elsewhere.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountTmpfs, type Tmpfs } from '../helpers/tmpfs.ts';
import { health, metricsText, startOutageStack, type OutageStack } from './outage-stack.ts';

const disk = mountTmpfs(300);
if (!disk) console.log('test/infra/disk-full.test.ts skipped: mounting a tmpfs needs root');

describe.skipIf(!disk)('the PGlite disk fills up and is freed again', () => {
  let stack: OutageStack;
  const tmpfs = disk as Tmpfs;

  beforeAll(async () => {
    stack = await startOutageStack({ DATA_DIR: path.join(tmpfs.dir, 'data') });
  }, 120_000);

  afterAll(async () => {
    tmpfs.free();
    await stack?.close();
    tmpfs.unmount();
  });

  it('refuses requests and reports 503 while full, and takes them again once there is room', async () => {
    expect((await health(stack.baseUrl)).status).toBe(200);
    tmpfs.fill();
    // A request fits while the table's last page has room; the first that needs a new page is refused.
    const text = `<@UBOT> file the outage issue noting "${'a long note '.repeat(100).trim()}"`;
    let refused: (ReturnType<typeof stack.driver.mention> & { status?: number }) | undefined;
    for (let tries = 0; tries < 40 && !refused; tries++) {
      const sent = stack.driver.mention({ channel: 'C1', user: 'U1', text });
      if ((await sent).status >= 500) refused = sent;
    }
    expect(refused).toBeDefined();
    const down = await health(stack.baseUrl);
    expect(down.status).toBe(503);
    expect(down.body.reason).toMatch(/database cannot be written: .*No space left on device/);
    expect(await metricsText(stack.baseUrl)).toMatch(/tandem_store_errors_total\{kind="not-writable"\} [1-9]/);

    tmpfs.free();
    const again = await stack.driver.event(
      { type: 'app_mention', user: 'U1', text, ts: refused!.ts, channel: 'C1', event_ts: refused!.ts },
      { eventId: refused!.eventId, retryNum: 1 },
    );
    expect(again.status).toBe(200);
    await stack.slack.waitUntil(() => stack.planIn(refused!.ts) !== undefined, 20_000, 'the plan of the redelivered mention');
    // Healthy again once PGlite was restarted on the folder that takes writes again (a second or two).
    let after = await health(stack.baseUrl);
    for (let tries = 0; after.status !== 200 && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      after = await health(stack.baseUrl);
    }
    expect(after).toEqual({ status: 200, body: { ok: true } });
  }, 90_000);
});
