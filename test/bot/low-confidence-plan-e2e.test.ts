/**
 * A low-confidence plan is two waits for one decision: the plan's own message and the escalation that
 * asks about it. Deciding on the plan message closes the escalation too: its buttons go, it says who
 * chose what, and a later click on its old buttons is refused with nothing changed.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ESCALATION_ACTIONS } from '../../src/bot/views/run/escalation.ts';
import { PLAN_APPROVE_ACTION, PLAN_MODIFY_ACTION, PLAN_REJECT_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { stateFromView, type FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import { useTestStore } from '../helpers/store.ts';
import { startSlackE2E, type SlackE2E } from '../fakes/slack-e2e.ts';
import { blocksText, hasButtons, isPlanVersion, isSummary, slackReaders } from '../fakes/thread-messages.ts';
import { newEphemeral } from '../fakes/modal-steps.ts';

const db = useTestStore();
let e: SlackE2E;
beforeEach(async () => {
  e = await startSlackE2E(db.store);
});
afterEach(() => e.stop());

const { current } = slackReaders(() => e.fake);

async function lowConfidence() {
  e.planner.answers.push({
    goal: 'Change alpha, perhaps',
    confidence: 0.2,
    steps: [{ id: 's1', title: 'Change the thing', tool: 'change_thing', argsJson: '{"target":"alpha"}', dependsOn: [], expect: null }],
    rollback: [],
    questions: [],
  });
  const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> do something vague' });
  expect((await sent).status).toBe(200);
  const ts = sent.ts;
  const plan = await e.waitForMessage(ts, isPlanVersion(1), 'the plan');
  const escalation = structuredClone(await e.waitForMessage(ts, (m) => m.text.includes('not confident') && hasButtons(m), 'the escalation'));
  const [run] = (await db.store.listRuns({ limit: 100 })).filter((r) => r.conversation.threadTs === ts);
  return { ts, plan, escalation, runId: run!.id };
}

/** A click on a button of the message as someone saw it before it changed (their screen not yet refreshed). */
async function staleClick(seen: FakeMessage, actionId: string, user: string): Promise<void> {
  const button = (seen.blocks ?? [])
    .flatMap((b) => ((b as { type?: string }).type === 'actions' ? (b as { elements: { action_id: string; value?: string }[] }).elements : []))
    .find((element) => element.action_id === actionId);
  if (!button) throw new Error(`no ${actionId} in the message as seen`);
  const clicked = await e.driver.click({ user, channel: 'C1', messageTs: seen.ts, threadTs: seen.threadTs, actionId, value: button.value, message: seen });
  expect(clicked.status).toBe(200);
}

/** The escalation's message is one line, no buttons, saying who chose what. */
async function collapsed(escalation: FakeMessage, says: string): Promise<void> {
  await e.fake.waitUntil(() => !hasButtons(current(escalation)), 5000, 'the escalation losing its buttons');
  const blocks = current(escalation).blocks ?? [];
  expect(blocks).toHaveLength(1);
  expect(blocksText(current(escalation))).toContain('The planner is not confident in this plan');
  expect(blocksText(current(escalation))).toContain(says);
}

describe('a low-confidence plan decided from the plan message', () => {
  it('approved there: the escalation closes saying who approved, and its old Approve anyway is refused without running anything twice', async () => {
    const { ts, plan, escalation, runId } = await lowConfidence();
    await e.driver.clickButtonIn(plan, PLAN_APPROVE_ACTION, 'UAPP1');
    await e.waitForMessage(ts, isSummary, 'the summary');
    await e.agent.idle();
    await collapsed(escalation, 'the plan was approved by <@UAPP1>');
    expect((await db.store.listEscalations(runId)).map((x) => [x.status, x.resolvedBy])).toEqual([['resolved', 'UAPP1']]);

    // Someone still looking at the old message clicks its buttons: refused, nothing runs again.
    const posted = e.thread(ts).length;
    await staleClick(escalation, ESCALATION_ACTIONS.approve, 'UAPP2');
    expect(await newEphemeral(e, 'UAPP2', 0)).toMatch(/already answered: Approved anyway by <@UAPP1>. Nothing more was done/);
    await staleClick(escalation, ESCALATION_ACTIONS.reject, 'UAPP2');
    expect(await newEphemeral(e, 'UAPP2', 1)).toContain('already answered');
    await e.agent.idle();
    expect(e.tools.calls).toEqual(['change_thing:alpha']);
    expect((await db.store.getRun(runId))!.status).toBe('succeeded');
    expect(e.thread(ts)).toHaveLength(posted);
  });

  it('rejected there: the escalation closes saying who rejected, and its old Approve anyway is refused', async () => {
    const { ts, plan, escalation, runId } = await lowConfidence();
    await e.driver.clickButtonIn(plan, PLAN_REJECT_ACTION, 'UREQ');
    await e.waitForMessage(ts, isSummary, 'the summary');
    await e.agent.idle();
    await collapsed(escalation, 'the plan was rejected by <@UREQ>');

    await staleClick(escalation, ESCALATION_ACTIONS.approve, 'UAPP1');
    expect(await newEphemeral(e, 'UAPP1', 0)).toMatch(/already answered: Rejected by <@UREQ>/);
    await e.agent.idle();
    expect(e.tools.calls).toEqual([]);
    expect((await db.store.getRun(runId))!.status).toBe('rejected');
  });

  it('modified there: the escalation about the old version closes saying who modified it, and its Approve anyway cannot run the old version', async () => {
    const { ts, plan, escalation, runId } = await lowConfidence();
    await e.driver.clickButtonIn(plan, PLAN_MODIFY_ACTION, 'UAPP1');
    await e.fake.waitForCall('views.update');
    const modal = [...e.fake.model.views.values()].at(-1)!;
    const yaml = String(stateFromView(modal.view)['plan-yaml-0']!.yaml!.value);
    const submitted = await e.driver.submitView({
      user: 'UAPP1',
      view: { id: modal.id, callback_id: String(modal.view.callback_id), private_metadata: String(modal.view.private_metadata) },
      values: stateFromView(modal.view, { 'plan-yaml-0': yaml.replace('target: alpha', 'target: beta') }),
    });
    expect(submitted.status).toBe(200);
    await e.waitForMessage(ts, isPlanVersion(2), 'plan v2');
    await collapsed(escalation, 'the plan was modified by <@UAPP1>');

    await staleClick(escalation, ESCALATION_ACTIONS.approve, 'UAPP2');
    expect(await newEphemeral(e, 'UAPP2', 0)).toMatch(/already answered: Modified by <@UAPP1>/);
    await e.agent.idle();
    expect(e.tools.calls).toEqual([]);
    const run = (await db.store.getRun(runId))!;
    expect([run.status, run.currentPlanVersion]).toEqual(['awaiting-approval', 2]);
  });
});
