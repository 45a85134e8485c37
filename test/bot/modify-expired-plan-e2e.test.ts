/**
 * Modify on a plan past TANDEM_APPROVAL_TTL_S (CONTRACT §5: it "expires and can only be proposed again, never run on
 * an old click"): its button shows the expiry instead of the editor, an editor opened before and sent after is
 * refused with the expiry's words, and no new version is made, whether or not a sweep expired the plan first. Before,
 * a click after the TTL and before the sweep made plan v2 of an expired plan.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PLAN_MODIFY_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { INSTRUCTION_BLOCK } from '../../src/bot/views/plan/modify-modal.ts';
import { stateFromView } from '../../src/workspace/slack-fake/index.ts';
import { useTestStore } from '../helpers/store.ts';
import { startSlackE2E, type SlackE2E } from '../fakes/slack-e2e.ts';
import { isPlanVersion } from '../fakes/thread-messages.ts';

const db = useTestStore();
/** How far the agent's clock is ahead of the real one; no sweep runs unless a test asks. */
let ahead = 0;
let e: SlackE2E;
afterEach(async () => {
  ahead = 0;
  await e.stop();
});

const DAY_AND_A_MINUTE_MS = (86_400 + 60) * 1000;
const EXPIRED = 'This plan expired: nobody approved it in time';

async function proposed() {
  e = await startSlackE2E(db.store, { clock: () => new Date(Date.now() + ahead) });
  const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> safe change please' });
  expect((await sent).status).toBe(200);
  const plan = await e.waitForMessage(sent.ts, isPlanVersion(1), 'the plan');
  const [run] = (await db.store.listRuns({ limit: 100 })).filter((r) => r.conversation.threadTs === sent.ts);
  return { ts: sent.ts, plan, runId: run!.id };
}

/** Clicks Modify and returns the modal once the bot filled it (the editor, or why not). */
async function clickModify(plan: Parameters<SlackE2E['driver']['clickButtonIn']>[0]) {
  const updates = e.fake.calls.filter((c) => c.method === 'views.update').length;
  await e.driver.clickButtonIn(plan, PLAN_MODIFY_ACTION, 'UAPP1');
  await e.fake.waitUntil(() => e.fake.calls.filter((c) => c.method === 'views.update').length > updates, 5000, 'the modal filled');
  return [...e.fake.model.views.values()].at(-1)!;
}

describe('Modify on a plan past its time to live', () => {
  it('its button shows that the plan expired instead of the editor, and the plan ends expired without a new version', async () => {
    const { plan, runId } = await proposed();
    ahead = DAY_AND_A_MINUTE_MS;
    const modal = await clickModify(plan);
    expect(JSON.stringify(modal.view)).toContain(EXPIRED);
    expect(JSON.stringify(modal.view)).not.toContain('plan-yaml-0');
    await e.agent.idle();
    expect((await db.store.getRun(runId))?.status).toBe('expired');
    expect((await db.store.listPlanVersions(runId)).map((v) => v.version)).toEqual([1]);
  });

  it.each([
    ['before any sweep expired it', false],
    ['after a sweep expired it', true],
  ])('an edit opened in time and sent %s is refused with the expiry, and makes no new version', async (_when, swept) => {
    const { ts, plan, runId } = await proposed();
    const modal = await clickModify(plan);
    ahead = DAY_AND_A_MINUTE_MS;
    if (swept) await e.agent.housekeep(new Date(Date.now() + ahead));
    const state = stateFromView(modal.view);
    const yaml = String(state['plan-yaml-0']!['yaml']!.value);
    const response = await e.driver.submitView({
      user: 'UAPP1',
      view: { id: modal.id, callback_id: String(modal.view.callback_id), private_metadata: String(modal.view.private_metadata) },
      values: stateFromView(modal.view, { 'plan-yaml-0': yaml.replace('goal: Change alpha safely', 'goal: Change alpha very safely') }),
    });
    expect(response.body).toMatchObject({ response_action: 'errors', errors: { 'plan-yaml-0': expect.stringContaining(EXPIRED) } });
    await e.agent.idle();
    expect((await db.store.getRun(runId))?.status).toBe('expired');
    expect((await db.store.listPlanVersions(runId)).map((v) => v.version)).toEqual([1]);
    expect(e.thread(ts).some(isPlanVersion(2))).toBe(false);
  });

  it('a revision asked in time and sent after is refused with the expiry, and the planner is not asked', async () => {
    const { plan, runId } = await proposed();
    const modal = await clickModify(plan);
    ahead = DAY_AND_A_MINUTE_MS;
    const asked = e.planner.requests.length;
    const before = e.fake.model.ephemeralsFor('UAPP1').length;
    const response = await e.driver.submitView({
      user: 'UAPP1',
      view: { id: modal.id, callback_id: String(modal.view.callback_id), private_metadata: String(modal.view.private_metadata) },
      values: stateFromView(modal.view, { [INSTRUCTION_BLOCK]: 'make it safer' }),
    });
    expect(response.status).toBe(200);
    await e.fake.waitUntil(() => e.fake.model.ephemeralsFor('UAPP1').length > before, 5000, 'the refusal');
    expect(e.fake.model.ephemeralsFor('UAPP1').at(-1)!.text).toContain(EXPIRED);
    await e.agent.idle();
    expect(e.planner.requests.length).toBe(asked);
    expect((await db.store.listPlanVersions(runId)).map((v) => v.version)).toEqual([1]);
  });
});
