/**
 * The Confirm's reminder says whom it waits on: a Confirm of a target filled from a person's answer, handed
 * to an approver with Reassign, is posted again by the reminder with "Waiting on @B — reassigned by @A"
 * above its buttons, and the approver it was handed to is pinged by name; their Confirm runs the step.
 * Real Bolt, agent and store; the fake Web API.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { REASSIGN_ACTION, REASSIGN_BLOCK, REASSIGN_CALLBACK, REASSIGN_INPUT } from '../../src/bot/views/run/reassign.ts';
import { TARGET_CONFIRM_ACTION } from '../../src/bot/views/run/target-confirmation.ts';
import type { FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import { useTestStore } from '../helpers/store.ts';
import { startSlackE2E, type SlackE2E } from '../fakes/slack-e2e.ts';
import { blocksText } from '../fakes/thread-messages.ts';

const db = useTestStore();
let e: SlackE2E;
beforeEach(async () => {
  e = await startSlackE2E(db.store);
  for (const id of ['UREQ', 'UAPP1', 'UAPP2']) e.fake.model.users.set(id, { id, name: id, real_name: id });
});
afterEach(() => e.stop());

const hasButton = (action: string) => (m: FakeMessage) => blocksText(m).includes(`"action_id":"${action}"`);
const isPlan = (m: FakeMessage) => m.text.startsWith('Plan v1:') && hasButton(PLAN_APPROVE_ACTION)(m);
const isConfirm = hasButton(TARGET_CONFIRM_ACTION);
const HALF_AN_HOUR_ON = () => new Date(Date.now() + 1801 * 1000);

it('a Confirm handed to an approver: the reminder pings them and its copy says "Waiting on", once, above its buttons', async () => {
  const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> ask then confirm' });
  expect((await sent).status).toBe(200);
  await e.driver.clickButtonIn(await e.waitForMessage(sent.ts, isPlan, 'the plan'), PLAN_APPROVE_ACTION, 'UAPP1');
  await e.waitForMessage(sent.ts, (m) => m.text.includes('Which cluster should I change?'), 'the question');
  // The answer names what the change acts on: an approver confirms it before it runs.
  await e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> prod-eu', threadTs: sent.ts });
  const confirm = await e.waitForMessage(sent.ts, isConfirm, 'the Confirm');
  expect(blocksText(confirm)).toContain('prod-eu');

  const opened = e.fake.callsOf('views.open').length;
  await e.driver.clickButtonIn(confirm, REASSIGN_ACTION, 'UAPP1');
  await e.fake.waitUntil(() => e.fake.callsOf('views.open').length > opened, 5000, 'the Reassign modal');
  const modal = [...e.fake.model.views.values()].at(-1)!;
  await e.driver.submitView({
    user: 'UAPP1',
    view: { id: modal.id, callback_id: REASSIGN_CALLBACK, private_metadata: String(modal.view.private_metadata) },
    values: { [REASSIGN_BLOCK]: { [REASSIGN_INPUT]: { type: 'users_select', selected_user: 'UAPP2' } } },
  });
  await e.fake.waitUntil(() => blocksText(e.fake.model.findMessage('C1', confirm.ts)!).includes('Waiting on <@UAPP2>'), 5000, 'the Confirm marked');

  await e.agent.housekeep(HALF_AN_HOUR_ON());
  await e.fake.waitUntil(() => e.thread(sent.ts).filter(isConfirm).length === 2, 5000, 'the reminder copy');
  const copy = e.thread(sent.ts).filter(isConfirm)[1]!;
  expect(blocksText(copy)).toContain('Waiting on <@UAPP2> — reassigned by <@UAPP1>');
  expect(blocksText(copy).match(/Waiting on/g)).toHaveLength(1);
  const blocks = copy.blocks as { type: string; block_id?: string }[];
  expect(blocks[blocks.findIndex((b) => b.block_id === 'wait-addressee') + 1]?.type).toBe('actions');
  // The reminder pings whom it was handed to, by name, before the copy.
  const ping = e.thread(sent.ts).find((m) => m.text.includes('<@UAPP2> this is still waiting on you'));
  expect(ping?.text).toContain('<@UAPP1> handed it to you');
  // A second sweep sends nothing more.
  await e.agent.housekeep(HALF_AN_HOUR_ON());
  expect(e.thread(sent.ts).filter(isConfirm)).toHaveLength(2);

  await e.driver.clickButtonIn(copy, TARGET_CONFIRM_ACTION, 'UAPP2');
  await e.fake.waitUntil(() => e.tools.calls.includes('change_thing:prod-eu'), 5000, 'the change run on the confirmed target');
});
