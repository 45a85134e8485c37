/**
 * Modify on a plan with a step longer than one input (review finding 8): the modal offers its YAML over
 * several inputs instead of "too large to edit here", and an edit submitted from them keeps the long
 * value exactly, a block scalar cut between two inputs included.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PLAN_MODIFY_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { stateFromView } from '../../src/workspace/slack-fake/index.ts';
import { useTestStore } from '../helpers/store.ts';
import { startSlackE2E, type SlackE2E } from '../fakes/slack-e2e.ts';
import { blocksText, isPlanVersion } from '../fakes/thread-messages.ts';

const db = useTestStore();
let e: SlackE2E;
beforeEach(async () => {
  e = await startSlackE2E(db.store);
});
afterEach(() => e.stop());

describe('Modify a plan with a 4,000-character step', () => {
  it('offers the YAML over several inputs, and the edit keeps the long value to the character', async () => {
    const notes = 'Release notes line.\n'.repeat(200);
    e.planner.answers.push({
      goal: 'Write the notes',
      confidence: 0.9,
      steps: [{ id: 's1', title: 'Write the release notes', tool: 'change_thing', argsJson: JSON.stringify({ target: notes }), dependsOn: [], expect: null }],
      rollback: [],
      questions: [],
    });
    const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> write the release notes' });
    expect((await sent).status).toBe(200);
    const plan = await e.waitForMessage(sent.ts, isPlanVersion(1), 'the plan');
    await e.driver.clickButtonIn(plan, PLAN_MODIFY_ACTION, 'UAPP1');
    await e.fake.waitForCall('views.update');
    const modal = [...e.fake.model.views.values()].at(-1)!;
    expect(JSON.stringify(modal.view)).not.toContain('too large');
    const state = stateFromView(modal.view);
    const parts = Object.keys(state).filter((id) => id.startsWith('plan-yaml-'));
    expect(parts.length).toBeGreaterThan(1);

    const first = String(state['plan-yaml-0']!['yaml']!.value);
    const response = await e.driver.submitView({
      user: 'UAPP1',
      view: { id: modal.id, callback_id: String(modal.view.callback_id), private_metadata: String(modal.view.private_metadata) },
      values: stateFromView(modal.view, { 'plan-yaml-0': first.replace('goal: Write the notes', 'goal: Write the notes today') }),
    });
    expect(response.body).toBe('');
    const v2 = await e.waitForMessage(sent.ts, isPlanVersion(2), 'plan v2');
    expect(blocksText(v2)).toContain('Write the notes today');
    const [run] = (await db.store.listRuns({ limit: 10 })).filter((r) => r.conversation.threadTs === sent.ts);
    const stored = await db.store.getPlanVersion(run!.id, 2);
    expect(stored!.plan.steps[0]!.args['target']).toBe(notes);
  });
});
