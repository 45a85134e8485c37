/**
 * CONTRACT §5: every wait for a person is re-pinged once after TANDEM_REMIND_AFTER_S. Through Slack's wire: an
 * escalation and a question get one reminder and nothing more, however long they wait past the TTL, and stay
 * answerable; a wait first swept after its TTL still gets its one reminder. §2: with TANDEM_APPROVERS empty
 * (anyone in the channel may approve) a plan's reminder still reaches a person — the requester — and says so.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { ESCALATION_ACTIONS } from '../../src/bot/views/run/escalation.ts';
import type { FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import { useTestStore } from '../helpers/store.ts';
import { startSlackE2E, type SlackE2E } from '../fakes/slack-e2e.ts';

const db = useTestStore();
let e: SlackE2E;
afterEach(() => e.stop());

const hasButtons = (m: FakeMessage) => (m.blocks ?? []).some((b) => (b as { type?: string }).type === 'actions');
const isPlan = (m: FakeMessage) => m.text.startsWith('Plan v1:') && hasButtons(m);
const isEscalation = (m: FakeMessage) => m.text.includes('A step failed') && hasButtons(m);
const isQuestion = (m: FakeMessage) => m.text.includes('Which cluster should I use?') && hasButtons(m);
const isSummary = (m: FakeMessage) => /^:(white_check_mark|warning|x|octagonal_sign|no_entry_sign|no_good): /.test(m.text);
/** Seconds from now, as the sweep's clock: the defaults remind after 1800 s and expire after 86400 s. */
const inS = (seconds: number) => new Date(Date.now() + seconds * 1000);
const LATER = [1801, 3600, 86_401, 90_000, 3 * 86_400];

async function approvedRun(task: string): Promise<string> {
  const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: `<@UBOT> ${task}` });
  expect((await sent).status).toBe(200);
  await e.driver.clickButtonIn(await e.waitForMessage(sent.ts, isPlan, 'the plan'), PLAN_APPROVE_ACTION, 'UAPP1');
  return sent.ts;
}

/** Sweeps at each moment, one after another, and lets what they started finish. */
async function sweep(...moments: Date[]): Promise<void> {
  for (const moment of moments) await e.agent.housekeep(moment);
  await e.agent.idle();
}

describe('a wait for a person is re-pinged once', () => {
  it('an escalation: one copy at the reminder, none at or after the TTL; the run stays paused and Retry still answers it', async () => {
    e = await startSlackE2E(db.store);
    e.tools.changeFailures = 1;
    const ts = await approvedRun('flaky change please');
    await e.waitForMessage(ts, isEscalation, 'the escalation');
    const before = e.thread(ts).length;

    await sweep(...LATER.map(inS));
    const after = e.thread(ts).slice(before);
    expect(after.filter(isEscalation)).toHaveLength(1);
    // Nothing else was posted for it either: no second ping to TANDEM_ESCALATE_TO at the TTL.
    expect(after).toHaveLength(1);

    const copy = after[0]!;
    // The reminder is the escalation posted again: it pings TANDEM_ESCALATE_TO as the first post did.
    expect(copy.text.startsWith('<!subteam^SOPS>')).toBe(true);
    await e.driver.clickButtonIn(copy, ESCALATION_ACTIONS.retry, 'UAPP1');
    const summary = await e.waitForMessage(ts, isSummary, 'the summary after Retry');
    expect(summary.text).toContain('Succeeded');
    expect(e.thread(ts).filter(isEscalation).length).toBeLessThanOrEqual(2);
  });

  it('a question: one copy at the reminder, none at or after the TTL; an answer still moves the run on', async () => {
    e = await startSlackE2E(db.store);
    const ts = await approvedRun('ask first then change');
    await e.waitForMessage(ts, isQuestion, 'the question');
    const before = e.thread(ts).length;

    await sweep(...LATER.map(inS));
    const after = e.thread(ts).slice(before);
    expect(after.filter(isQuestion)).toHaveLength(1);
    expect(after).toHaveLength(1);

    await e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> alpha', threadTs: ts });
    const summary = await e.waitForMessage(ts, isSummary, 'the summary after the answer');
    expect(summary.text).toContain('Succeeded');
    expect(e.tools.calls).toContain('change_thing:alpha');
  });

  it('a wait first swept after its TTL (the bot was down) still gets its one reminder, and only one', async () => {
    e = await startSlackE2E(db.store);
    e.tools.changeFailures = 1;
    const ts = await approvedRun('flaky change please');
    await e.waitForMessage(ts, isEscalation, 'the escalation');
    const before = e.thread(ts).length;

    await sweep(inS(2 * 86_400), inS(2 * 86_400 + 60), inS(4 * 86_400));
    expect(e.thread(ts).slice(before).filter(isEscalation)).toHaveLength(1);
    expect(e.thread(ts).slice(before)).toHaveLength(1);
  });
});

describe('the approval reminder with TANDEM_APPROVERS empty (anyone in the channel may approve)', () => {
  it('reaches the requester by name and says anyone in the channel may approve; it is sent once', async () => {
    e = await startSlackE2E(db.store, { approvers: [] });
    const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> safe change please' });
    expect((await sent).status).toBe(200);
    await e.waitForMessage(sent.ts, isPlan, 'the plan');
    const before = e.thread(sent.ts).length;

    await sweep(inS(1801), inS(3600));
    const reminders = e.thread(sent.ts).slice(before);
    expect(reminders).toHaveLength(1);
    expect(reminders[0]!.text).toContain('<@UREQ>');
    expect(reminders[0]!.text).toMatch(/anyone in this channel may approve/);
  });

  it('a plan with a destructive step says someone other than the requester must approve it', async () => {
    e = await startSlackE2E(db.store, { approvers: [] });
    const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> destroy alpha' });
    expect((await sent).status).toBe(200);
    await e.waitForMessage(sent.ts, isPlan, 'the plan');
    const before = e.thread(sent.ts).length;

    await sweep(inS(1801));
    const [reminder] = e.thread(sent.ts).slice(before);
    expect(reminder?.text).toContain('<@UREQ>');
    expect(reminder?.text).toMatch(/anyone in this channel other than you may approve it/);
  });
});
