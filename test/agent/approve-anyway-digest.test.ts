/**
 * "Approve anyway" on a low-confidence plan binds to the plan content its button was drawn for, as the plan
 * message's Approve does (CONTRACT §5: an approval binds to the digest shown). It used to record the digest of the
 * plan as stored at the click, so a plan changed behind the message was approved and run as it then stood
 * (review 19, finding 7).
 */
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { planDigest, shortDigest } from '../../src/agent/model/plan/plan-digest.ts';
import { useTestStore } from '../helpers/store.ts';
import { standardTools } from './support/fake-tools.ts';
import { makeHarness, type Harness } from './support/harness.ts';
import { ScriptedLlm, plannerAnswer } from './support/scripted-llm.ts';

// The real engine: the test rewrites a stored plan with SQL, as someone with the database's password could.
const db = useTestStore();
let h: Harness;
afterEach(() => expect(h.errors).toEqual([]));

const doubtful = plannerAnswer({ confidence: 0.3, steps: [{ id: 's1', tool: 'create_thing', args: { title: 'release notes' } }] });

async function doubted() {
  const tools = standardTools();
  h = makeHarness({ store: db.store, tools: tools.all, llm: new ScriptedLlm().on('planner', doubtful), approvers: ['UAPP'] });
  const run = await h.start('write the notes', 'UREQ');
  const [asked] = h.surface.of(run.id, 'escalation');
  expect(asked!.escalation).toMatchObject({ kind: 'low-confidence', status: 'open' });
  return { tools, run, escalationId: asked!.escalation.id, shown: asked!.offer.plan?.digest };
}

describe('"Approve anyway" binds to the plan it was drawn for', () => {
  it('its button carries the digest of the plan doubted; the click records the approval under it and the plan runs', async () => {
    const { tools, run, escalationId, shown } = await doubted();
    const digest = await planDigest((await h.store.getPlanVersion(run.id, 1))!.plan);
    expect(shown).toBe(shortDigest(digest));
    expect(await h.agent.resolveEscalation({ escalationId, userId: 'UAPP', action: 'approve', digest: shown })).toEqual({ ok: true, value: undefined });
    await h.agent.idle();
    expect((await h.store.listApprovals(run.id)).map((a) => a.digest)).toEqual([digest]);
    expect(tools.write.calls.map((c) => c.args)).toEqual([{ title: 'release notes' }]);
  });

  it('a plan changed behind its message is refused like a stale Approve: nothing is approved and nothing runs', async () => {
    const { tools, run, escalationId, shown } = await doubted();
    await db.database!.db.execute(
      sql`update plan_versions set plan = jsonb_set(plan, '{steps,0,args,title}', to_jsonb('something else'::text)) where run_id = ${run.id} and version = 1`,
    );
    const answer = await h.agent.resolveEscalation({ escalationId, userId: 'UAPP', action: 'approve', digest: shown });
    await h.agent.idle();
    expect(answer).toEqual({ ok: false, error: expect.objectContaining({ code: 'plan-changed' }) });
    expect(await h.store.listApprovals(run.id)).toEqual([]);
    expect(tools.write.calls).toEqual([]);
    expect((await h.store.getRun(run.id))?.status).toBe('awaiting-approval');
    expect(await h.store.getEscalation(escalationId)).toMatchObject({ status: 'open' });
  });
});
