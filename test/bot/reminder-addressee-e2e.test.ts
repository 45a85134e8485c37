/**
 * A reminder posts a wait's message again at the bottom of the thread: after a Reassign that copy says
 * whom it waits on ("Waiting on @B — reassigned by @A"), as the first post does; without one it names nobody.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { REASSIGN_ACTION } from '../../src/bot/views/run/reassign.ts';
import type { FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import { useTestStore } from '../helpers/store.ts';
import { startSlackE2E, type SlackE2E } from '../fakes/slack-e2e.ts';
import { blocksText, hasButtons, isPlan } from '../fakes/thread-messages.ts';
import { openModal, submitReassign } from '../fakes/modal-steps.ts';

const db = useTestStore();
let e: SlackE2E;
beforeEach(async () => {
  e = await startSlackE2E(db.store);
  for (const id of ['UREQ', 'UAPP1', 'UAPP2', 'UOTHER']) e.fake.model.users.set(id, { id, name: id, real_name: id });
});
afterEach(() => e.stop());

const HALF_AN_HOUR_ON = () => new Date(Date.now() + 1801 * 1000);

async function reassign(message: FakeMessage, by: string, to: string) {
  await submitReassign(e, await openModal(e, message, by, REASSIGN_ACTION), by, to);
  await e.fake.waitUntil(() => blocksText(e.fake.model.findMessage('C1', message.ts)!).includes(`Waiting on <@${to}>`), 5000, 'the message marked');
}

/** The copies of a wait's message in the thread (the first post and the reminder's), oldest first. */
async function copies(ts: string, match: (m: FakeMessage) => boolean, count: number): Promise<FakeMessage[]> {
  await e.fake.waitUntil(() => e.thread(ts).filter((m) => match(m) && hasButtons(m)).length >= count, 5000, `${count} copies`);
  return e.thread(ts).filter((m) => match(m) && hasButtons(m));
}

describe("the reminder's copy of a wait says whom it waits on", () => {
  it('an escalation handed over: the copy carries the line, once, above its buttons', async () => {
    e.tools.changeFailures = 1;
    const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> flaky change please' });
    expect((await sent).status).toBe(200);
    await e.driver.clickButtonIn(await e.waitForMessage(sent.ts, isPlan, 'the plan'), PLAN_APPROVE_ACTION, 'UAPP1');
    const isEscalation = (m: FakeMessage) => m.text.includes('A step failed');
    const [escalation] = await copies(sent.ts, isEscalation, 1);
    await reassign(escalation!, 'UAPP1', 'UAPP2');

    await e.agent.housekeep(HALF_AN_HOUR_ON());
    const [, copy] = await copies(sent.ts, isEscalation, 2);
    expect(blocksText(copy!)).toContain('Waiting on <@UAPP2> — reassigned by <@UAPP1>');
    expect(blocksText(copy!).match(/Waiting on/g)).toHaveLength(1);
    const blocks = copy!.blocks as { type: string; block_id?: string }[];
    expect(blocks[blocks.findIndex((b) => b.block_id === 'wait-addressee') + 1]?.type).toBe('actions');
  });

  it('a question handed over: the copy carries the line; a question nobody handed on is posted again naming nobody', async () => {
    const asked = async () => {
      const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> ask first then change' });
      expect((await sent).status).toBe(200);
      await e.driver.clickButtonIn(await e.waitForMessage(sent.ts, isPlan, 'the plan'), PLAN_APPROVE_ACTION, 'UAPP1');
      return sent.ts;
    };
    const isQuestion = (m: FakeMessage) => m.text.includes('Which cluster should I use?');
    const handed = await asked();
    const untouched = await asked();
    const [question] = await copies(handed, isQuestion, 1);
    await copies(untouched, isQuestion, 1);
    await reassign(question!, 'UREQ', 'UOTHER');

    await e.agent.housekeep(HALF_AN_HOUR_ON());
    const [, copy] = await copies(handed, isQuestion, 2);
    expect(blocksText(copy!)).toContain('Waiting on <@UOTHER> — reassigned by <@UREQ>');
    const [, plain] = await copies(untouched, isQuestion, 2);
    expect(blocksText(plain!)).not.toContain('Waiting on');
  });
});
