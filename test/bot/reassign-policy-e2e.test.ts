/**
 * Reassign under TANDEM_POLICY (CONTRACT §5: with a policy set, a refusal names the rule): a hand-over refused
 * because the clicker, or the person it would go to, may not answer the wait says which rule refused it and
 * who may, as an Approve or a Confirm refused by the policy does.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REASSIGN_ACTION } from '../../src/bot/views/run/reassign.ts';
import { eventsOfType } from '../../src/agent/model/run-events.ts';
import { useTestStore } from '../helpers/store.ts';
import { cedarGate } from '../helpers/policy-gate.ts';
import { startSlackE2E, type SlackE2E } from '../fakes/slack-e2e.ts';
import { isPlan } from '../fakes/thread-messages.ts';
import { newEphemeral, openModal, submitReassign } from '../fakes/modal-steps.ts';

const POLICY = `
@id("anyone-requests")
permit (principal, action == Action::"request", resource);

@id("leads-approve") @who("Lee or Ann")
permit (principal, action in [Action::"approve", Action::"confirm"], resource is Step)
when { principal == User::"UAPP1" || principal == User::"UAPP2" };

@id("requesters-steer") @who("the person who asked")
permit (principal, action in [Action::"cancel", Action::"replan", Action::"answer", Action::"abort"], resource is Run)
when { principal == context.requester };
`;

const db = useTestStore();
let e: SlackE2E;
beforeEach(async () => {
  e = await startSlackE2E(db.store, { policy: cedarGate(POLICY) });
  for (const id of ['UREQ', 'UAPP1', 'UAPP2', 'UOUTSIDER']) e.fake.model.users.set(id, { id, name: id, real_name: id });
});
afterEach(() => e.stop());

async function proposed() {
  const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> safe change please' });
  expect((await sent).status).toBe(200);
  const plan = await e.waitForMessage(sent.ts, isPlan, 'the plan');
  const [run] = (await db.store.listRuns({ limit: 100 })).filter((r) => r.conversation.threadTs === sent.ts);
  return { plan, runId: run!.id };
}
const handOvers = async (runId: string) => eventsOfType(await db.store.listEvents(runId), 'wait-reassigned');

describe('Reassign of a plan waiting for approval, under a policy file', () => {
  it('by someone the policy does not let approve it: the refusal names the rule and who may', async () => {
    const { plan, runId } = await proposed();
    await submitReassign(e, await openModal(e, plan, 'UOUTSIDER', REASSIGN_ACTION), 'UOUTSIDER', 'UAPP2');
    const refusal = await newEphemeral(e, 'UOUTSIDER', 0);
    expect(refusal).toContain('Only someone who may answer this can hand it to someone else.');
    expect(refusal).toContain('needs Lee or Ann (rule `leads-approve`)');
    expect(refusal).toContain('Nothing changed');
    expect(await handOvers(runId)).toEqual([]);
  });

  it('to someone the policy does not let approve it: the refusal names the rule that refuses them', async () => {
    const { plan, runId } = await proposed();
    await submitReassign(e, await openModal(e, plan, 'UAPP1', REASSIGN_ACTION), 'UAPP1', 'UOUTSIDER');
    const refusal = await newEphemeral(e, 'UAPP1', 0);
    expect(refusal).toContain('<@UOUTSIDER> may not answer this, so it was not handed to them.');
    expect(refusal).toContain('needs Lee or Ann (rule `leads-approve`)');
    expect(refusal).toContain('Nothing changed');
    expect(await handOvers(runId)).toEqual([]);
  });
});
