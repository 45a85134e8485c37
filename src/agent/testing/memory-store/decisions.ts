/**
 * A person's decision in memory, compare-and-set as decisions-repository.ts: every check is made before the
 * first write, so a refused decision writes nothing and an accepted one writes all its facts together.
 */
import type { AnswerInput, DecisionInput, DecisionRefusalCode, DecisionResult, PlansPort } from '../../ports/plans.ts';
import type { QuestionRecord } from '../../ports/human-input.ts';
import type { RunRecord } from '../../ports/runs.ts';
import { insertApproval } from './plans.ts';
import { moveStep } from './steps.ts';
import { byTick, copy, stepKey, text, type MemoryTables, type RunRow, type Write } from './tables.ts';

const refused = (code: DecisionRefusalCode, run: RunRecord | undefined) => ({ ok: false as const, code, run: copy(run) });

function refusal(run: RunRecord | undefined, input: DecisionInput): DecisionRefusalCode | undefined {
  if (!run) return 'run-missing';
  if (input.planVersion !== null && run.currentPlanVersion !== input.planVersion) return 'plan-changed';
  if (!input.from.includes(run.status)) return 'not-waiting';
  return undefined;
}

/** The run's new status; its update time moves only when the status does. */
function moveRun(row: RunRow, to: RunRecord['status'] | undefined, write: Write): void {
  if (to && to !== row.run.status) Object.assign(row.run, { status: to, updatedAt: write.now });
}

function decide(tables: MemoryTables, input: DecisionInput): DecisionResult {
  if (input.approval && input.planVersion === null) throw new Error('an approval binds to a plan version');
  if (input.steps?.length && !input.escalation) throw new Error('steps move with an escalation decision only');
  const write = tables.begin();
  const row = tables.runs.get(input.runId);
  const refusedFor = refusal(row?.run, input);
  if (refusedFor || !row) return refused(refusedFor ?? 'run-missing', row?.run);
  const escalation = input.escalation && tables.escalations.get(input.escalation.id);
  if (input.escalation && (escalation?.runId !== row.run.id || escalation.status !== 'open')) return refused('escalation-resolved', row.run);
  const resolve = (action: string, userId: string) => ({ status: 'resolved', resolution: action, resolvedBy: text(userId), resolvedAt: write.now });
  if (escalation && input.escalation) Object.assign(escalation, resolve(input.escalation.action, input.escalation.userId));
  const also = input.alsoResolve;
  if (also) {
    for (const open of tables.escalations.values()) {
      if (open.runId === row.run.id && open.status === 'open' && (!also.kind || open.kind === also.kind))
        Object.assign(open, resolve(also.action, also.userId));
    }
  }
  // A move whose step is no longer where it was (a peer moved it) is left as it is.
  for (const move of input.steps ?? []) moveStep(tables, { runId: row.run.id, ...move }, write);
  if (input.approval) insertApproval(tables, { ...input.approval, runId: row.run.id, planVersion: input.planVersion! }, write);
  moveRun(row, input.to, write);
  tables.appendEvent(row, input.event, write);
  return { ok: true, run: copy(row.run), value: copy(row.run) };
}

function answer(tables: MemoryTables, input: AnswerInput): DecisionResult<QuestionRecord> {
  const write = tables.begin();
  const row = tables.runs.get(input.runId);
  if (!row) return refused('run-missing', undefined);
  const run = row.run;
  // A request handled before a crash, and replayed: its answer is stored; the question pending now is another.
  const events = tables.events.get(run.id) ?? [];
  if (input.requestId && events.some((e) => e.type === 'question-answered' && e.data.requestId === input.requestId)) return refused('already-answered', run);
  const [open] = [...tables.questions.values()]
    .filter((q) => q.runId === run.id && q.answeredAt === null && (!input.questionId || q.id === input.questionId))
    .sort((a, b) => byTick(a, b) || a.id.localeCompare(b.id));
  if (!open) return refused('nothing-to-answer', run);
  // A question asked by a version that was since replaced is not what the person now sees.
  if (open.planVersion !== null && open.planVersion !== run.currentPlanVersion) return refused('plan-changed', run);
  const ofStep = open.stepId !== null && open.planVersion !== null;
  if (!(ofStep ? input.stepFrom : input.planFrom).includes(run.status)) return refused('not-waiting', run);
  Object.assign(open, { answer: text(input.answer), answeredBy: text(input.userId), answeredAt: write.now });
  if (ofStep) {
    const step = tables.steps.get(stepKey({ runId: run.id, planVersion: open.planVersion!, stepId: open.stepId! }));
    if (step?.status === 'waiting') {
      const output = { answer: text(input.answer), answeredBy: text(input.userId) };
      Object.assign(step, { status: 'succeeded', output, finishedAt: step.finishedAt ?? write.now, leaseOwner: null, leaseUntil: null });
    }
  } else moveRun(row, input.planTo, write);
  const carriedBy = input.requestId ? { requestId: input.requestId } : {};
  tables.appendEvent(row, { type: 'question-answered', data: { questionId: open.id, stepId: open.stepId, by: input.userId, ...carriedBy } }, write);
  const { tick: _tick, ...question } = open;
  return { ok: true, run: copy(run), value: copy(question) };
}

export function memoryDecisions(tables: MemoryTables): Pick<PlansPort, 'decide' | 'answer'> {
  return {
    decide: async (input) => decide(tables, input),
    answer: async (input) => answer(tables, input),
  };
}
