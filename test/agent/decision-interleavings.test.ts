/**
 * Property: whatever order approve / reject / edit / cancel / answer clicks from several people land
 * in — each click's approver lookup taking its own time, clicks on stale versions included — no
 * version runs without its own approval by an allowed person, a refused click records nothing, a
 * bystander's words never become an answer, and `tandem audit` finds nothing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sleep } from '../../src/agent/sleep.ts';
import { auditViolations } from '../audit/support.ts';
import { useMemoryStore } from '../helpers/store.ts';
import { standardTools } from './support/fake-tools.ts';
import { makeHarness } from './support/harness.ts';
import { ScriptedLlm, plannerAnswer } from './support/scripted-llm.ts';

const db = useMemoryStore();

const PEOPLE = ['UREQ', 'UAPP', 'UAPP2', 'UBY'] as const;
const APPROVERS = ['UAPP', 'UAPP2'];
type Person = (typeof PEOPLE)[number];
type Click = { kind: 'approve' | 'reject' | 'edit' | 'cancel' | 'answer'; by: Person; stale: boolean; lookupMs: number };

const click: fc.Arbitrary<Click> = fc.record({
  kind: fc.constantFrom('approve', 'approve', 'reject', 'edit', 'edit', 'cancel', 'answer'),
  by: fc.constantFrom(...PEOPLE),
  stale: fc.boolean(),
  lookupMs: fc.integer({ min: 0, max: 15 }),
});
/** Clicks in rounds; the clicks of one round land at the same time. */
const rounds = fc.array(fc.array(click, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 });

// Asks the requester which thing, then makes it: the title names the version that made it.
const plan = plannerAnswer({
  steps: [
    { id: 's1', tool: 'ask_human', args: { question: 'Which thing?' } },
    { id: 's2', tool: 'create_thing', args: { title: '{{steps.s1.output.answer}} by v1' }, dependsOn: ['s1'] },
  ],
});

describe('decisions under every interleaving', () => {
  it('run only approved versions, record refused clicks nowhere, and leave nothing for the audit', async () => {
    await fc.assert(
      fc.asyncProperty(rounds, async (script) => {
        const tools = standardTools();
        const lookups: number[] = [];
        const h = makeHarness({
          store: db.store,
          tools: tools.all,
          llm: new ScriptedLlm().on('planner', plan),
          soleOwner: true,
          // Each click's approver lookup takes as long as the script says (a Slack user-group call).
          approvers: ['SAPPROVERS'],
          groups: { groupsOf: async (userId, among) => (await sleep(lookups.shift() ?? 0), APPROVERS.includes(userId) ? among : []) },
        });
        const run = await h.start('make the thing I name', 'UREQ');
        const approved: number[] = [];
        let edits = 0;
        const perform = async (c: Click) => {
          const current = (await h.store.getRun(run.id))!.currentPlanVersion!;
          const version = c.stale && current > 1 ? current - 1 : current;
          lookups.push(c.lookupMs);
          if (c.kind === 'approve' || c.kind === 'reject') {
            const decided = await h.agent.decide({ runId: run.id, planVersion: version, userId: c.by, decision: c.kind });
            if (decided.ok && c.kind === 'approve') approved.push(version);
          } else if (c.kind === 'edit') {
            const stored = (await h.store.getPlanVersion(run.id, version))!.plan;
            const n = ++edits + 1;
            const steps = stored.steps.map((step) => (step.id === 's2' ? { ...step, args: { title: `{{steps.s1.output.answer}} by edit ${n}` } } : step));
            await h.agent.editPlan({ runId: run.id, planVersion: version, userId: c.by, plan: { ...stored, steps } });
          } else if (c.kind === 'cancel') {
            await h.agent.followUp({ conversation: run.conversation, userId: c.by, text: 'cancel' });
          } else {
            await h.agent.followUp({ conversation: run.conversation, userId: c.by, text: `thing of ${c.by}` });
          }
        };
        for (const round of script) await Promise.all(round.map(perform));
        await h.agent.followUp({ conversation: run.conversation, userId: 'UREQ', text: 'thing of UREQ' });
        await h.agent.idle();

        const [approvals, versions, attempts, questions] = await Promise.all([
          h.store.listApprovals(run.id),
          h.store.listPlanVersions(run.id),
          h.store.listAttempts(run.id),
          h.store.listQuestions(run.id),
        ]);
        // Exactly the accepted approvals are on record, each by an approver, each of a distinct version.
        expect(
          approvals
            .filter((a) => a.decision === 'approved')
            .map((a) => a.planVersion)
            .sort(),
        ).toEqual([...approved].sort());
        expect(approvals.filter((a) => a.decision === 'approved').every((a) => APPROVERS.includes(a.userId))).toBe(true);
        expect(new Set(approved).size).toBe(approved.length);
        // Every step that started belongs to an approved version, and what was made is what that version said.
        expect(attempts.every((a) => approved.includes(a.planVersion))).toBe(true);
        for (const call of tools.write.calls) {
          const made = versions.find(
            (v) =>
              approved.includes(v.version) &&
              String(v.plan.steps.find((s) => s.id === 's2')?.args.title).replace('{{steps.s1.output.answer}}', '') ===
                String(call.args.title).replace(/^thing of \w+/, ''),
          );
          expect(made, `${String(call.args.title)} was made by an approved version`).toBeDefined();
        }
        // A bystander's words never became an answer, and a bystander never decided anything.
        expect(questions.some((q) => q.answeredBy === 'UBY')).toBe(false);
        expect(tools.write.calls.some((c) => String(c.args.title).includes('UBY'))).toBe(false);
        expect(approvals.some((a) => a.userId === 'UBY')).toBe(false);
        expect((await h.store.listEvents(run.id)).some((e) => 'by' in e.data && e.data.by === 'UBY')).toBe(false);
        expect(await auditViolations(db.store, tools.all, APPROVERS, run.id)).toEqual([]);
        expect(h.errors).toEqual([]);
      }),
      { numRuns: 25, endOnFailure: true },
    );
  }, 600_000);
});
