/**
 * CONTRACT §5: a wait is re-pinged once by posting it again, so a thread can hold two copies of one wait. Through
 * Slack's wire: whichever copy is answered (or the run ends), no copy keeps buttons that say it still waits.
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
const isEscalation = (m: FakeMessage) => m.text.includes('A step failed');
const isQuestion = (m: FakeMessage) => m.text.includes('Which cluster should I use?');
const isSummary = (m: FakeMessage) => /^:(white_check_mark|warning|x|octagonal_sign|no_entry_sign|no_good): /.test(m.text);
const shown = (m: FakeMessage) => JSON.stringify(m.blocks ?? []);

async function approvedRun(task: string): Promise<string> {
  const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: `<@UBOT> ${task}` });
  expect((await sent).status).toBe(200);
  await e.driver.clickButtonIn(await e.waitForMessage(sent.ts, isPlan, 'the plan'), PLAN_APPROVE_ACTION, 'UAPP1');
  return sent.ts;
}

/** The wait's first message and the copy its reminder posted (the sweep runs past the default 1800 s). */
async function remindedCopies(ts: string, isWait: (m: FakeMessage) => boolean): Promise<FakeMessage[]> {
  await e.waitForMessage(ts, (m) => isWait(m) && hasButtons(m), 'the wait');
  await e.agent.housekeep(new Date(Date.now() + 1801 * 1000));
  await e.agent.idle();
  const copies = e.thread(ts).filter((m) => isWait(m) && hasButtons(m));
  expect(copies).toHaveLength(2);
  return copies;
}

const current = (ts: string, copy: FakeMessage) => e.thread(ts).find((m) => m.ts === copy.ts)!;

describe('every copy of a wait says what became of it', () => {
  it('an escalation answered on its reminder: the first copy becomes the same answered line', async () => {
    e = await startSlackE2E(db.store);
    e.tools.changeFailures = 1;
    const ts = await approvedRun('flaky change please');
    const [first, reminder] = await remindedCopies(ts, isEscalation);

    await e.driver.clickButtonIn(reminder!, ESCALATION_ACTIONS.retry, 'UAPP1');
    await e.waitForMessage(ts, isSummary, 'the summary after Retry');
    for (const copy of [first!, reminder!]) {
      const now = current(ts, copy);
      expect(hasButtons(now)).toBe(false);
      expect(shown(now)).toContain('Retried by <@UAPP1>');
      expect(shown(now)).not.toContain('Still waiting for a decision');
    }
  });

  it('a question answered by a mention after its reminder: both copies say who answered, neither offers Answer', async () => {
    e = await startSlackE2E(db.store);
    const ts = await approvedRun('ask first then change');
    const copies = await remindedCopies(ts, isQuestion);

    await e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> alpha', threadTs: ts });
    await e.waitForMessage(ts, isSummary, 'the summary after the answer');
    for (const copy of copies) {
      const now = current(ts, copy);
      expect(hasButtons(now)).toBe(false);
      expect(shown(now)).toContain('alpha');
    }
  });

  it('a run cancelled while its escalation waits: no copy keeps Retry, Skip, Replan or Abort', async () => {
    e = await startSlackE2E(db.store);
    e.tools.changeFailures = 1;
    const ts = await approvedRun('flaky change please');
    const copies = await remindedCopies(ts, isEscalation);

    await e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> cancel', threadTs: ts });
    await e.waitForMessage(ts, isSummary, 'the summary after the cancel');
    await e.agent.idle();
    for (const copy of copies) {
      const now = current(ts, copy);
      expect(hasButtons(now)).toBe(false);
      expect(shown(now)).toContain('no longer waits for anyone');
    }
  });
});
