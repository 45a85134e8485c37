/**
 * A write whose call went through and then failed (decision 053: it made its change), retried, and failing again
 * before its call went through: the first attempt's change still stands. The second escalation says it changed,
 * an Abort undoes it, and the summary lists it with its address. Before, the Retry's attempt overwrote the step's
 * record and the first change was forgotten: "Nothing has changed yet", no undo, nothing in "What changed".
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ESCALATION_ACTIONS } from '../../src/bot/views/run/escalation.ts';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { useTestStore } from '../helpers/store.ts';
import { startSlackE2E, type SlackE2E } from '../fakes/slack-e2e.ts';
import { blocksText, hasButtons, isPlanVersion, isSummary } from '../fakes/thread-messages.ts';

const db = useTestStore();
let e: SlackE2E;
beforeEach(async () => {
  e = await startSlackE2E(db.store);
});
afterEach(() => e.stop());

/** The thread of a flaky change, its plan approved: the step fails as the tools are told. */
async function approvedFlakyChange(): Promise<string> {
  const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> flaky change please' });
  expect((await sent).status).toBe(200);
  await e.driver.clickButtonIn(await e.waitForMessage(sent.ts, isPlanVersion(1), 'the plan'), PLAN_APPROVE_ACTION, 'UAPP1');
  return sent.ts;
}

const openEscalations = (ts: string) => e.thread(ts).filter((m) => m.text.includes('A step failed') && hasButtons(m));

describe('Retry of a step that made its change and failed', () => {
  it('keeps the first change: the next escalation says it, Abort undoes it, and the summary lists it', async () => {
    e.tools.changeMadeThenFailures = 1;
    e.tools.changeFailures = 1;
    const ts = await approvedFlakyChange();
    const open = () => openEscalations(ts);
    await e.fake.waitUntil(() => open().length === 1, 5000, 'the first escalation');
    const first = open()[0]!;
    expect(blocksText(first)).toContain('Change the thing');
    await e.driver.clickButtonIn(first, ESCALATION_ACTIONS.retry, 'UAPP2');

    await e.fake.waitUntil(() => open().length === 1 && open()[0]!.ts !== first.ts, 5000, 'the escalation of the retry');
    const second = open()[0]!;
    expect(blocksText(second)).toContain('could not change alpha: conflict');
    expect(blocksText(second)).not.toContain('Nothing has changed yet');

    await e.driver.clickButtonIn(second, ESCALATION_ACTIONS.abort, 'UAPP2');
    const summary = await e.waitForMessage(ts, isSummary, 'the summary');
    await e.agent.idle();
    expect(summary.text).toContain('Aborted');
    expect(e.tools.calls).toContain('undo_thing:alpha');
    expect(blocksText(summary)).toContain('https://example.test/change/alpha/');
  });

  it('a Retry that makes its change again elsewhere: the summary lists both changes, the first one by its address', async () => {
    e.tools.changeMadeThenFailures = 1;
    const ts = await approvedFlakyChange();
    const escalation = await e.waitForMessage(ts, (m) => m.text.includes('A step failed') && hasButtons(m), 'the escalation');
    await e.driver.clickButtonIn(escalation, ESCALATION_ACTIONS.retry, 'UAPP2');
    const summary = await e.waitForMessage(ts, isSummary, 'the summary');
    await e.agent.idle();
    const [run] = (await db.store.listRuns({ limit: 100 })).filter((r) => r.conversation.threadTs === ts);
    const first = (await db.store.listAttempts(run!.id)).find((a) => a.stepId === 's2' && a.attempt === 1)?.error?.url;
    expect(first).toMatch(/^https:\/\/example\.test\/change\/alpha\/\d+$/);
    expect(blocksText(summary)).toContain(first!);
    expect(blocksText(summary)).toContain('https://example.test/change/alpha|');
  });

  it('two attempts that each made their change: after an Abort the summary says the first is still in place', async () => {
    // Attempt 1 makes a change and fails; its Retry makes another and fails too. The undo is filled from the step's one
    // record, so it reaches one of them: the summary must not read as if everything was rolled back.
    e.tools.changeMadeThenFailures = 2;
    const ts = await approvedFlakyChange();
    const open = () => openEscalations(ts);
    await e.fake.waitUntil(() => open().length === 1, 5000, 'the first escalation');
    const first = open()[0]!;
    await e.driver.clickButtonIn(first, ESCALATION_ACTIONS.retry, 'UAPP2');
    await e.fake.waitUntil(() => open().length === 1 && open()[0]!.ts !== first.ts, 5000, 'the escalation of the retry');
    await e.driver.clickButtonIn(open()[0]!, ESCALATION_ACTIONS.abort, 'UAPP2');
    const summary = await e.waitForMessage(ts, isSummary, 'the summary');
    await e.agent.idle();
    expect(e.tools.calls.filter((call) => call === 'change_thing:alpha')).toHaveLength(2);
    expect(summary.text).toContain('Aborted');
    expect(blocksText(summary)).toContain('Change the thing (what attempt 1 made)');
    const [run] = (await db.store.listRuns({ limit: 100 })).filter((r) => r.conversation.threadTs === ts);
    const made = (await db.store.listAttempts(run!.id)).filter((a) => a.stepId === 's2').map((a) => a.error?.url);
    expect(made).toHaveLength(2);
    for (const url of made) expect(blocksText(summary)).toContain(url!);
  });
});
