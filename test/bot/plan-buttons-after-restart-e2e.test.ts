/**
 * A plan posted by one process, superseded or ended by the next (a restart, or another replica): its Approve,
 * Modify and Reject go, and the message says why, whichever process moves the run on. Before, only the process
 * that posted a plan (in memory) took its buttons away, so after a restart an expired or replaced plan kept
 * live-looking buttons in the thread. Real Bolt, agent and store; the fake Web API, kept across the restart.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FULL_PLAN_ACTION } from '../../src/bot/views/plan/full-plan-modal.ts';
import { PLAN_MODIFY_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { SlackFakeServer, stateFromView, type FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import { BOT_TOKEN } from '../fakes/slack-harness.ts';
import { useTestStore } from '../helpers/store.ts';
import { startSlackE2E, type SlackE2E } from '../fakes/slack-e2e.ts';
import { blocksText, hasButtons, isPlanVersion, isSummary } from '../fakes/thread-messages.ts';

const db = useTestStore();
/** The processes still running, stopped before the workspace they share. */
const running: SlackE2E[] = [];
let fake: SlackFakeServer | undefined;
afterEach(async () => {
  for (const e of running.splice(0)) await e.stop();
  await fake?.stop();
  fake = undefined;
});

const later = (seconds: number) => new Date(Date.now() + seconds * 1000);

/** Plan v1 posted by a first process, which then stops; the next process, on the same store and workspace, is returned. */
async function planThenRestart() {
  fake = await new SlackFakeServer({ token: BOT_TOKEN }).start();
  const first = await startSlackE2E(db.store, { fake });
  running.push(first);
  const sent = first.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> safe change please' });
  expect((await sent).status).toBe(200);
  const plan = await first.waitForMessage(sent.ts, isPlanVersion(1), 'the plan');
  await first.agent.idle();
  await running.shift()!.stop();
  const next = await startSlackE2E(db.store, { fake });
  running.push(next);
  const now = (m: FakeMessage) => fake!.model.findMessage('C1', m.ts)!;
  return { next, ts: sent.ts, plan, now };
}

const actionIds = (m: FakeMessage) =>
  (m.blocks ?? [])
    .flatMap((b) => ((b as { type?: string }).type === 'actions' ? (b as { elements: { action_id: string }[] }).elements : []))
    .map((x) => x.action_id);

describe('a plan posted before a restart', () => {
  it('expired by the next process loses Approve, Modify and Reject, says it expired, and keeps View full plan', async () => {
    const { next, ts, plan, now } = await planThenRestart();
    await next.agent.housekeep(later(86_400 + 60));
    await next.waitForMessage(ts, isSummary, 'the summary');
    await next.agent.idle();
    await fake!.waitUntil(() => !hasButtons(now(plan)), 5000, 'the plan losing its buttons');
    expect(blocksText(now(plan))).toContain('Plan expired');
    expect(actionIds(now(plan))).toEqual([FULL_PLAN_ACTION]);
    expect(next.tools.calls).toEqual([]);
  });

  it('replaced by a version the next process posts loses its buttons and points to the new one', async () => {
    const { next, ts, plan, now } = await planThenRestart();
    await next.driver.clickButtonIn(plan, PLAN_MODIFY_ACTION, 'UAPP1');
    await fake!.waitForCall('views.update');
    const modal = [...fake!.model.views.values()].at(-1)!;
    const yaml = String(stateFromView(modal.view)['plan-yaml-0']!.yaml!.value);
    const submitted = await next.driver.submitView({
      user: 'UAPP1',
      view: { id: modal.id, callback_id: String(modal.view.callback_id), private_metadata: String(modal.view.private_metadata) },
      values: stateFromView(modal.view, { 'plan-yaml-0': yaml.replace('target: alpha', 'target: beta') }),
    });
    expect(submitted.status).toBe(200);
    const v2 = await next.waitForMessage(ts, isPlanVersion(2), 'plan v2');
    await fake!.waitUntil(() => !hasButtons(now(plan)), 5000, 'v1 losing its buttons');
    expect(blocksText(now(plan))).toContain('Replaced by version 2 below');
    expect(hasButtons(now(v2))).toBe(true);
  });
});
