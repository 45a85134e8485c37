/**
 * A person's decision is one compare-and-set: the run row is locked, its status and current plan
 * version (and the escalation's state) are checked, and the decision's facts — approval row, status,
 * resolved escalation, event — are written in the same transaction. A refused decision writes nothing.
 */
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { AnswerInput, DecisionInput, DecisionRefusalCode, DecisionResult, QuestionRecord, RunRecord } from '../agent/ports/run-store.ts';
import type { Db } from './database.ts';
import { appendEvent } from './events-repository.ts';
import { toRunRecord } from './runs-repository.ts';
import { approvals, escalations, questions, runs, steps } from './schema.ts';

const refused = (code: DecisionRefusalCode, run: RunRecord | undefined) => ({ ok: false as const, code, run });

async function lockRun(tx: Db, runId: string): Promise<RunRecord | undefined> {
  const [row] = await tx.select().from(runs).where(eq(runs.id, runId)).for('update');
  return row ? toRunRecord(row) : undefined;
}

async function moveRun(tx: Db, run: RunRecord, to: RunRecord['status'] | undefined): Promise<RunRecord> {
  if (!to || to === run.status) return run;
  const [row] = await tx.update(runs).set({ status: to, updatedAt: new Date() }).where(eq(runs.id, run.id)).returning();
  return toRunRecord(row!);
}

export function recordDecision(db: Db, input: DecisionInput): Promise<DecisionResult> {
  return db.transaction(async (tx) => {
    const run = await lockRun(tx, input.runId);
    if (!run) return refused('run-missing', undefined);
    if (input.planVersion !== null && run.currentPlanVersion !== input.planVersion) return refused('plan-changed', run);
    if (!input.from.includes(run.status)) return refused('not-waiting', run);
    if (input.escalation) {
      const { id, action, userId } = input.escalation;
      const resolved = await tx
        .update(escalations)
        .set({ status: 'resolved', resolution: action, resolvedBy: userId, resolvedAt: sql`now()` })
        .where(and(eq(escalations.id, id), eq(escalations.runId, run.id), eq(escalations.status, 'open')))
        .returning({ id: escalations.id });
      if (resolved.length === 0) return refused('escalation-resolved', run);
    }
    if (input.alsoResolve) {
      const { kind, action, userId } = input.alsoResolve;
      await tx
        .update(escalations)
        .set({ status: 'resolved', resolution: action, resolvedBy: userId, resolvedAt: sql`now()` })
        .where(and(eq(escalations.runId, run.id), eq(escalations.status, 'open'), eq(escalations.kind, kind)));
    }
    if (input.approval) {
      if (input.planVersion === null) throw new Error('an approval binds to a plan version');
      const { userId, decision, via = 'person', need = null, why = null } = input.approval;
      await tx.insert(approvals).values({ runId: run.id, planVersion: input.planVersion, userId, decision, via, need, why });
    }
    const moved = await moveRun(tx, run, input.to);
    await appendEvent(tx, run.id, input.event.type, input.event.data);
    return { ok: true as const, run: moved, value: moved };
  });
}

export function recordAnswer(db: Db, input: AnswerInput): Promise<DecisionResult<QuestionRecord>> {
  return db.transaction(async (tx) => {
    const run = await lockRun(tx, input.runId);
    if (!run) return refused('run-missing', undefined);
    const [open] = await tx
      .select()
      .from(questions)
      .where(and(eq(questions.runId, run.id), isNull(questions.answeredAt)))
      .orderBy(asc(questions.createdAt), asc(questions.id))
      .limit(1);
    if (!open) return refused('nothing-to-answer', run);
    // A question asked by a version that was since replaced is not what the person now sees.
    if (open.planVersion !== null && open.planVersion !== run.currentPlanVersion) return refused('plan-changed', run);
    const ofStep = open.stepId !== null && open.planVersion !== null;
    if (!(ofStep ? input.stepFrom : input.planFrom).includes(run.status)) return refused('not-waiting', run);
    const [question] = await tx
      .update(questions)
      .set({ answer: input.answer, answeredBy: input.userId, answeredAt: sql`now()` })
      .where(eq(questions.id, open.id))
      .returning();
    let moved = run;
    if (ofStep) {
      await tx
        .update(steps)
        .set({
          status: 'succeeded',
          output: { answer: input.answer, answeredBy: input.userId },
          finishedAt: sql`coalesce(${steps.finishedAt}, now())`,
          leaseOwner: null,
          leaseUntil: null,
        })
        .where(and(eq(steps.runId, run.id), eq(steps.planVersion, open.planVersion!), eq(steps.stepId, open.stepId!), eq(steps.status, 'waiting')));
    } else moved = await moveRun(tx, run, input.planTo);
    await appendEvent(tx, run.id, 'question-answered', { questionId: open.id, stepId: open.stepId, by: input.userId });
    return { ok: true as const, run: moved, value: { ...question! } };
  });
}
