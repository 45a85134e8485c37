/**
 * A person's decision is one compare-and-set: the run row is locked, its status and current plan
 * version (and the escalation's state) are checked, and the decision's facts — approval row, status,
 * resolved escalation, event — are written in the same statement (or, for an escalation, the same
 * transaction). A refused decision writes nothing.
 */
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { AnswerInput, DecisionInput, DecisionRefusalCode, DecisionResult, QuestionRecord, RunRecord } from '../../agent/ports/run-store.ts';
import type { Db } from '../database.ts';
import { appendEvent } from '../runs/events-repository.ts';
import { preparedShapes } from '../engine/prepared-rows.ts';
import { jsonParam } from '../engine/raw-rows.ts';
import { fromRawRun, type RawRunRow } from '../runs/run-rows.ts';
import { toRunRecord } from '../runs/runs-repository.ts';
import { setStepStatus } from '../steps/steps-repository.ts';
import { approvals, escalations, events, questions, runs, steps } from '../schema.ts';

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

/**
 * A decision that resolves no particular escalation (approve, reject, cancel, a Confirm) is one statement:
 * the run row is locked, checked, and every fact written, or none. One that resolves an escalation checks
 * that escalation is still open before anything else is written: a transaction.
 */
export function recordDecision(db: Db, input: DecisionInput): Promise<DecisionResult> {
  if (input.steps?.length && !input.escalation) throw new Error('steps move with an escalation decision only');
  return input.escalation ? recordEscalationDecision(db, input) : recordDecisionAtOnce(db, input);
}

/** Why a decision on this run (as locked) is refused, if it is. */
function refusal(run: RunRecord | undefined, input: DecisionInput): DecisionRefusalCode | undefined {
  if (!run) return 'run-missing';
  if (input.planVersion !== null && run.currentPlanVersion !== input.planVersion) return 'plan-changed';
  if (!input.from.includes(run.status)) return 'not-waiting';
  return undefined;
}

/**
 * The compare-and-set in data-modifying CTEs. `locked` takes the run row FOR UPDATE (a concurrent decision
 * waits, then sees the row as that one left it); `go` is the run when the checks pass, and every write
 * reads `go`, so a refused decision writes nothing. The event takes the run's next sequence number in the
 * same update that moves the run.
 */
async function recordDecisionAtOnce(db: Db, input: DecisionInput): Promise<DecisionResult> {
  const { approval, alsoResolve, to, event } = input;
  if (approval && input.planVersion === null) throw new Error('an approval binds to a plan version');
  const shape: DecisionShape = `${alsoResolve ? (alsoResolve.kind ? 'resolves-kind' : 'resolves') : 'alone'}_${approval ? 'approval' : 'none'}_${to ? 'moves' : 'stays'}`;
  const [row] = await decisionStatement(shape)(db, {
    runId: input.runId,
    planVersion: input.planVersion,
    from: jsonParam(input.from),
    resolution: alsoResolve?.action ?? null,
    resolvedBy: alsoResolve?.userId ?? null,
    resolvedKind: alsoResolve?.kind ?? null,
    userId: approval?.userId ?? null,
    decision: approval?.decision ?? null,
    via: approval?.via ?? 'person',
    need: approval?.need ?? null,
    why: approval?.why ?? null,
    digest: approval?.digest ?? null,
    policyHash: approval?.policyHash ?? null,
    policyRules: approval?.policyRules ? jsonParam(approval.policyRules) : null,
    policyGroups: approval?.policyGroups ? jsonParam(approval.policyGroups) : null,
    to: to ?? null,
    eventType: event.type,
    eventData: jsonParam(event.data),
  });
  const locked = row?.locked ? fromRawRun(row.locked) : undefined;
  if (!row?.moved) return refused(refusal(locked, input) ?? 'not-waiting', locked);
  const moved = fromRawRun(row.moved);
  return { ok: true as const, run: moved, value: moved };
}

/** Whether the decision also resolves open escalations (of one kind or any), records an approval, and moves the run. */
type DecisionShape = `${'resolves-kind' | 'resolves' | 'alone'}_${'approval' | 'none'}_${'moves' | 'stays'}`;

const value = (name: string) => sql.placeholder(name);

const decisionStatement = preparedShapes<DecisionShape, { locked: RawRunRow | null; moved: RawRunRow | null }>((shape) => {
  const [resolves, approves, moves] = shape.split('_');
  return sql`with locked as (select * from ${runs} where id = ${value('runId')} for update),
      go as (
        select id from locked
        where (${value('planVersion')}::int is null or current_plan_version = ${value('planVersion')}::int)
          and status in (select jsonb_array_elements_text(${value('from')}::jsonb))
      )${
        resolves !== 'alone'
          ? sql`, also_resolved as (
              update ${escalations} set status = 'resolved', resolution = ${value('resolution')}, resolved_by = ${value('resolvedBy')}, resolved_at = now()
              where run_id in (select id from go) and status = 'open'${resolves === 'resolves-kind' ? sql` and kind = ${value('resolvedKind')}` : sql``})`
          : sql``
      }${
        approves === 'approval'
          ? sql`, approved as (
              insert into ${approvals} (run_id, plan_version, user_id, decision, via, need, why, digest, policy_hash, policy_rules, policy_groups)
              select id, ${value('planVersion')}::int, ${value('userId')}, ${value('decision')}, ${value('via')}, ${value('need')}, ${value('why')}, ${value('digest')}, ${value('policyHash')}, ${value('policyRules')}::jsonb, ${value('policyGroups')}::jsonb
              from go)`
          : sql``
      },
      moved as (
        update ${runs} set event_seq = event_seq + 1${moves === 'moves' ? sql`, status = ${value('to')}, updated_at = case when status = ${value('to')} then updated_at else now() end` : sql``}
        where id in (select id from go)
        returning *
      ),
      logged as (insert into ${events} (run_id, seq, type, data) select id, event_seq, ${value('eventType')}, ${value('eventData')}::jsonb from moved)
    select (select row_to_json(l) from locked l) as locked, (select row_to_json(m) from moved m) as moved`;
}, 'decision');

function recordEscalationDecision(db: Db, input: DecisionInput): Promise<DecisionResult> {
  return db.transaction(async (tx) => {
    const run = await lockRun(tx, input.runId);
    const refusedFor = refusal(run, input);
    if (refusedFor) return refused(refusedFor, run);
    if (!run) return refused('run-missing', undefined);
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
        .where(and(eq(escalations.runId, run.id), eq(escalations.status, 'open'), kind ? eq(escalations.kind, kind) : undefined));
    }
    // A move whose step is no longer where it was (a peer moved it) is left as it is.
    for (const move of input.steps ?? []) await setStepStatus(tx, { runId: run.id, ...move });
    if (input.approval) {
      if (input.planVersion === null) throw new Error('an approval binds to a plan version');
      const {
        userId,
        decision,
        via = 'person',
        need = null,
        why = null,
        digest = null,
        policyHash = null,
        policyRules = null,
        policyGroups = null,
      } = input.approval;
      await tx.insert(approvals).values({
        runId: run.id,
        planVersion: input.planVersion,
        userId,
        decision,
        via,
        need,
        why,
        digest,
        policyHash,
        policyRules: policyRules ? [...policyRules] : null,
        policyGroups: policyGroups ? [...policyGroups] : null,
      });
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
    // A request handled before a crash, and replayed: its answer is stored; the question pending now is another.
    if (input.requestId && (await answeredBy(tx, run.id, input.requestId))) return refused('already-answered', run);
    const [open] = await tx
      .select()
      .from(questions)
      // The question the answer names (an Answer form's), else the oldest open one.
      .where(and(eq(questions.runId, run.id), isNull(questions.answeredAt), input.questionId ? eq(questions.id, input.questionId) : undefined))
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
    const carriedBy = input.requestId ? { requestId: input.requestId } : {};
    await appendEvent(tx, run.id, 'question-answered', { questionId: open.id, stepId: open.stepId, by: input.userId, ...carriedBy });
    return { ok: true as const, run: moved, value: { ...question! } };
  });
}

/** True when this request already answered a question of the run (the run row is locked by the caller). */
async function answeredBy(tx: Db, runId: string, requestId: string): Promise<boolean> {
  const found = await tx
    .select({ seq: events.seq })
    .from(events)
    .where(and(eq(events.runId, runId), eq(events.type, 'question-answered'), sql`${events.data}->>'requestId' = ${requestId}`))
    .limit(1);
  return found.length > 0;
}
