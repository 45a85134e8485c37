/**
 * PGlite's DATA_DIR stops being writable while Tandem runs (CONTRACT §6, storage unavailable): a real
 * `tandem start`, run as `nobody` against a folder it owns, loses the write bits on every file and folder
 * of it mid-run (as a volume remounted read-only for the bot's user looks to it) and gets them back later.
 * PGlite keeps writing the files it holds open and fails on the others, so some requests are stored and
 * some are not: each is either refused with a 5xx (Slack sends it again) or acknowledged and then answered
 * in its thread. `/healthz` answers 503 saying the database cannot be written from the first refused
 * write until PGlite was restarted in the process on the writable folder (pglite-reopen.ts); the run
 * that was executing then goes on by itself, with one GitHub write and one summary. A mention acknowledged
 * but not stored in full (its run's table needed a new file) is handled again once the folder takes writes,
 * without a "try again" in its thread (inbox-receiver.ts). Needs root (to run
 * the bot as `nobody`); skipped elsewhere.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { health, metricsText, summarised } from './outage-stack.ts';
import { canRunAsNobody, startTandemAsNobody, type TandemProcess } from './tandem-process.ts';

const TASK = '<@UBOT> file the drill issue';
const RUNBOOK = `name: drill
pattern: "file the drill issue"
plan:
  goal: File the drill issue
  confidence: 0.9
  steps:
    - { id: s1, title: Wait a moment, tool: wait, args: { seconds: 3 } }
    - { id: s2, title: File the issue, tool: github_create_issue, args: { repo: acme/api, title: Drill, body: A drill }, dependsOn: [s1] }
    - { id: s3, title: Settle, tool: wait, args: { seconds: 1 }, dependsOn: [s2] }
`;

const runnable = canRunAsNobody();
if (!runnable) console.log('test/infra/data-dir-read-only.test.ts skipped: needs root and setpriv to run the bot as nobody');

describe.skipIf(!runnable)('the PGlite folder becomes read-only while Tandem runs, then writable again', () => {
  let bot: TandemProcess;

  beforeAll(async () => {
    bot = await startTandemAsNobody({
      'drill.yml': RUNBOOK,
      'drill-noted.yml': RUNBOOK.replace('name: drill', 'name: drill-noted').replace('issue"', 'issue noting {note}"'),
    });
  }, 90_000);

  afterAll(async () => {
    bot?.setWritable(true);
    await bot?.close();
  });

  it('refuses what it cannot store, says 503 meanwhile, loses nothing acknowledged and goes on by itself', async () => {
    const first = bot.driver.mention({ channel: 'C1', user: 'U1', text: TASK });
    expect((await first).status).toBe(200);
    await bot.approve(first.ts);
    await bot.slack.waitUntil(() => bot.thread(first.ts).some((m) => m.text.startsWith('Running')), 20_000, 'the board');
    expect((await health(bot.baseUrl)).status).toBe(200);

    bot.setWritable(false);
    // A long request is stored apart from its row (PostgreSQL's TOAST table), a file PGlite never opened yet: it cannot be stored.
    const long = bot.driver.mention({ channel: 'C1', user: 'U1', text: `${TASK} noting ${randomBytes(9_000).toString('base64')}` });
    expect((await long).status).toBeGreaterThanOrEqual(500);
    const refused = [{ ts: long.ts, eventId: long.eventId, text: bot.slack.model.findMessage('C1', long.ts)?.text ?? '' }];
    const down = await health(bot.baseUrl);
    expect(down.status).toBe(503);
    expect(down.body.reason).toMatch(/^the database cannot be written: could not open file .*Permission denied/);
    // Short requests go into files PGlite holds open: each is refused or acknowledged, as the store allows.
    const acknowledged: string[] = [];
    for (let tries = 0; tries < 6; tries++) {
      const sent = bot.driver.mention({ channel: 'C1', user: 'U1', text: TASK });
      if ((await sent).status >= 500) refused.push({ ts: sent.ts, eventId: sent.eventId, text: TASK });
      else acknowledged.push(sent.ts);
      await sleep(500);
    }
    // Still 503 while the folder is read-only, though some writes went through meanwhile.
    expect((await health(bot.baseUrl)).status).toBe(503);
    expect(await metricsText(bot.baseUrl)).toMatch(/tandem_store_errors_total\{kind="not-writable"\} [1-9]/);

    bot.setWritable(true);
    await bot.slack.waitUntil(() => summarised(bot.thread(first.ts)), 30_000, 'the summary once the folder takes writes again');
    let after = await health(bot.baseUrl);
    for (let tries = 0; after.status !== 200 && tries < 50; tries++) {
      await sleep(200);
      after = await health(bot.baseUrl);
    }
    expect(after).toEqual({ status: 200, body: { ok: true } });

    // Every acknowledged mention is answered with its plan, once; every refused one is handled when Slack sends it again.
    for (const ts of acknowledged) await bot.slack.waitUntil(() => bot.planIn(ts) !== undefined, 30_000, `the plan of the acknowledged mention ${ts}`);
    for (const { ts, eventId, text } of refused) {
      const again = await bot.driver.event({ type: 'app_mention', user: 'U1', text, ts, channel: 'C1', event_ts: ts }, { eventId, retryNum: 1 });
      expect(again.status).toBe(200);
      await bot.slack.waitUntil(() => bot.planIn(ts) !== undefined, 30_000, `the plan of the redelivered mention ${ts}`);
    }
    await sleep(1_000);
    for (const ts of [...acknowledged, ...refused.map((r) => r.ts)]) {
      expect(bot.thread(ts).filter((m) => m.text === bot.planIn(ts)!.text)).toHaveLength(1);
      // An acknowledged request the store failed under is handled again, not answered with "try again".
      expect(bot.thread(ts).filter((m) => m.text.startsWith('I could not start on that'))).toEqual([]);
    }
    expect(bot.issues()).toBe(1);
    expect(bot.thread(first.ts).filter((m) => m.text.startsWith(':white_check_mark: Succeeded'))).toHaveLength(1);
    console.log(`read-only drill: ${acknowledged.length} mentions acknowledged, ${refused.length} refused while read-only`);
  }, 150_000);
});
