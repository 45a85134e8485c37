/**
 * Reassign on a plan waiting for approval (CONTRACT §5: every wait can be handed to someone else): the
 * plan message says whom it waits on, that person is pinged and reminded, the hand-over is recorded; the
 * refusals are those of the other kinds of wait.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { REASSIGN_ACTION } from '../../src/bot/views/run/reassign.ts';
import { eventsOfType } from '../../src/agent/model/run-events.ts';
import { useTestStore } from '../helpers/store.ts';
import { startSlackE2E, type SlackE2E } from '../fakes/slack-e2e.ts';
import { blocksText, hasButtons, isPlan, isSummary, slackReaders } from '../fakes/thread-messages.ts';
import { newEphemeral, openModal, submitReassign } from '../fakes/modal-steps.ts';

const db = useTestStore();
let e: SlackE2E;
beforeEach(async () => {
  e = await startSlackE2E(db.store);
  for (const id of ['UREQ', 'UAPP1', 'UAPP2', 'UOUTSIDER']) e.fake.model.users.set(id, { id, name: id, real_name: id });
  e.fake.model.users.set('UAPPBOT', { id: 'UAPPBOT', name: 'deploybot', real_name: 'Deploy bot', is_bot: true });
  e.fake.model.users.set('UGONE', { id: 'UGONE', name: 'gone', real_name: 'Gone', deleted: true });
});
afterEach(() => e.stop());

const { current } = slackReaders(() => e.fake);
const handOvers = async (runId: string) => eventsOfType(await db.store.listEvents(runId), 'wait-reassigned').map((event) => event.data);

async function proposed() {
  const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> safe change please' });
  expect((await sent).status).toBe(200);
  const plan = await e.waitForMessage(sent.ts, isPlan, 'the plan');
  const [run] = (await db.store.listRuns({ limit: 100 })).filter((r) => r.conversation.threadTs === sent.ts);
  return { ts: sent.ts, plan, runId: run!.id };
}

describe('Reassign on a plan waiting for approval', () => {
  it('hands it over: the plan says whom it waits on, the person is pinged and reminded, it is recorded, and their Approve runs it', async () => {
    const { ts, plan, runId } = await proposed();
    expect(blocksText(plan)).toContain('"text":"Reassign"');
    await submitReassign(e, await openModal(e, plan, 'UAPP1', REASSIGN_ACTION), 'UAPP1', 'UAPP2');

    await e.fake.waitUntil(() => blocksText(current(plan)).includes('Waiting on <@UAPP2> — reassigned by <@UAPP1>'), 5000, 'the plan marked');
    expect(hasButtons(current(plan))).toBe(true);
    await e.waitForMessage(ts, (m) => m.text.startsWith('<@UAPP2> <@UAPP1> handed'), 'the ping');
    expect(await handOvers(runId)).toEqual([{ wait: 'approval', key: 'v1', to: 'UAPP2', from: null, by: 'UAPP1' }]);

    await e.agent.housekeep(new Date(Date.now() + 1801 * 1000));
    await e.waitForMessage(ts, (m) => m.text.includes('<@UAPP2> this is still waiting on you'), 'the reminder to the new addressee');

    await e.driver.clickButtonIn(current(plan), PLAN_APPROVE_ACTION, 'UAPP2');
    const summary = await e.waitForMessage(ts, isSummary, 'the summary');
    await e.agent.idle();
    expect(summary.text).toContain('Succeeded');
    // Decided: the line says who approved, and no longer whom it waits on.
    await e.fake.waitUntil(() => blocksText(current(plan)).includes('Approved by <@UAPP2>'), 5000, 'the plan decided');
    expect(blocksText(current(plan))).not.toContain('Waiting on');
  });

  it.each([
    ['a bot', 'UAPPBOT', 'is an app, not a person'],
    ['a deactivated user', 'UGONE', 'is deactivated'],
    ['yourself', 'UAPP1', 'That is you'],
    ['someone who may not approve', 'UOUTSIDER', '<@UOUTSIDER> may not answer this'],
    ['the requester, who may not approve it', 'UREQ', '<@UREQ> may not answer this'],
  ])('to %s is refused in an ephemeral message, and nothing changes', async (_what, to, words) => {
    const { ts, plan, runId } = await proposed();
    const posted = e.thread(ts).length;
    await submitReassign(e, await openModal(e, plan, 'UAPP1', REASSIGN_ACTION), 'UAPP1', to);
    const refusal = await newEphemeral(e, 'UAPP1', 0);
    expect(refusal).toContain(words);
    expect(refusal).toContain('Nothing changed');
    expect(await handOvers(runId)).toEqual([]);
    expect(blocksText(current(plan))).not.toContain('Waiting on');
    expect(e.thread(ts)).toHaveLength(posted);
  });

  it('by someone who may not approve it is refused', async () => {
    const { plan, runId } = await proposed();
    await submitReassign(e, await openModal(e, plan, 'UREQ', REASSIGN_ACTION), 'UREQ', 'UAPP2');
    expect(await newEphemeral(e, 'UREQ', 0)).toContain('Only someone who may answer this can hand it');
    expect(await handOvers(runId)).toEqual([]);
  });

  it('of a plan approved meanwhile, or expired, is refused', async () => {
    const approved = await proposed();
    const late = await openModal(e, approved.plan, 'UAPP1', REASSIGN_ACTION);
    await e.driver.clickButtonIn(approved.plan, PLAN_APPROVE_ACTION, 'UAPP2');
    await e.waitForMessage(approved.ts, isSummary, 'the summary');
    await e.agent.idle();
    await submitReassign(e, late, 'UAPP1', 'UAPP2');
    expect(await newEphemeral(e, 'UAPP1', 0)).toContain('no longer waiting for anyone');
    expect(await handOvers(approved.runId)).toEqual([]);

    const expiring = await proposed();
    const old = await openModal(e, expiring.plan, 'UAPP1', REASSIGN_ACTION);
    await e.agent.housekeep(new Date(Date.now() + 86_401 * 1000));
    await e.agent.idle();
    expect((await db.store.getRun(expiring.runId))?.status).toBe('expired');
    await submitReassign(e, old, 'UAPP1', 'UAPP2');
    expect(await newEphemeral(e, 'UAPP1', 1)).toContain('no longer waiting for anyone');
    expect(await handOvers(expiring.runId)).toEqual([]);
  });

  it('refuses forged button values: another version, a run that is not there', async () => {
    const { plan, runId } = await proposed();
    for (const [value, words] of [
      [JSON.stringify({ w: 'a', r: runId, v: 7 }), 'no longer waiting for anyone'],
      [JSON.stringify({ w: 'a', r: 'run_not_there', v: 1 }), 'That run does not exist'],
    ] as const) {
      const opened = e.fake.calls.filter((c) => c.method === 'views.open').length;
      await e.driver.click({ user: 'UAPP1', channel: 'C1', messageTs: plan.ts, actionId: REASSIGN_ACTION, value });
      await e.fake.waitUntil(() => e.fake.calls.filter((c) => c.method === 'views.open').length > opened, 5000, 'the modal');
      const before = e.fake.model.ephemeralsFor('UAPP1').length;
      await submitReassign(e, [...e.fake.model.views.values()].at(-1)!, 'UAPP1', 'UAPP2');
      expect(await newEphemeral(e, 'UAPP1', before)).toContain(words);
    }
    await e.driver.click({ user: 'UAPP1', channel: 'C1', messageTs: plan.ts, actionId: REASSIGN_ACTION, value: '{"w":"a","r":"x","v":0}' });
    expect(await newEphemeral(e, 'UAPP1', 2)).toContain('not from a wait I recognise');
    expect(await handOvers(runId)).toEqual([]);
    expect(blocksText(current(plan))).not.toContain('Waiting on');
  });
});
