/** HumanInputPort in memory: escalations-, questions- and confirmations-repository.ts. */
import type { ConfirmationRecord, EscalationRecord, HumanInputPort, QuestionRecord } from '../../ports/human-input.ts';
import type { OweAlong } from '../../ports/outbox.ts';
import type { RunStatus } from '../../ports/runs.ts';
import { oweMessages } from './outbox.ts';
import { memoryWaitMessages } from './wait-messages.ts';
import { byTick, json, maybeText, newId, stepKey, text, untick, type MemoryTables, type Write } from './tables.ts';

const AWAITING = { message: 'waiting for an approver to confirm its target', code: 'awaiting-confirmation' };
/** A Confirm needs a run still going; a rolling-back run's rollback steps are not bound to its current version. */
const DECIDABLE: readonly RunStatus[] = ['paused', 'executing', 'rolling-back'];

/** The message owed along with a new escalation or question: named by the row's id, which its payload carries. */
function oweAlong(tables: MemoryTables, row: { runId: string; id: string }, kind: 'escalation' | 'question', owed: OweAlong | undefined, write: Write) {
  if (!owed) return;
  const owe = [{ id: `${row.runId}/${kind}/${row.id}`, kind, payload: { ...owed.payload, [`${kind}Id`]: row.id } }];
  oweMessages(tables, { runId: row.runId, owe, owner: owed.owner, leaseMs: owed.leaseMs }, write);
}

const oldestFirst = <T extends { tick: number; id: string }>(a: T, b: T) => byTick(a, b) || a.id.localeCompare(b.id);

function escalations(
  tables: MemoryTables,
): Pick<HumanInputPort, 'openEscalation' | 'getEscalation' | 'listEscalations' | 'listOpenEscalations' | 'resolveEscalation' | 'expireEscalation'> {
  return {
    async openEscalation(input, owed) {
      const write = tables.begin();
      tables.runRow(input.runId);
      const escalation: EscalationRecord & { tick: number } = {
        id: newId('esc'),
        runId: input.runId,
        planVersion: input.planVersion,
        stepId: maybeText(input.stepId),
        kind: input.kind,
        message: json(input.message),
        status: 'open',
        resolution: null,
        resolvedBy: null,
        createdAt: write.now,
        resolvedAt: null,
        tick: write.tick,
      };
      oweAlong(tables, escalation, 'escalation', owed, write);
      tables.escalations.set(escalation.id, escalation);
      return untick(escalation);
    },
    async getEscalation(id) {
      const found = tables.escalations.get(id);
      return found && untick(found);
    },
    async listEscalations(runId) {
      return [...tables.escalations.values()]
        .filter((e) => e.runId === runId)
        .sort(oldestFirst)
        .map(untick);
    },
    async listOpenEscalations(input) {
      return [...tables.escalations.values()]
        .filter((e) => e.status === 'open' && e.kind === input.kind)
        .sort(oldestFirst)
        .slice(0, input.limit)
        .map(untick);
    },
    async resolveEscalation(input) {
      const write = tables.begin();
      const found = tables.escalations.get(input.id);
      if (found?.status !== 'open') return false;
      Object.assign(found, { status: 'resolved', resolution: input.action, resolvedBy: text(input.userId), resolvedAt: write.now });
      return true;
    },
    async expireEscalation(id) {
      const write = tables.begin();
      const found = tables.escalations.get(id);
      if (found?.status !== 'open') return false;
      Object.assign(found, { status: 'expired', resolvedAt: write.now });
      return true;
    },
  };
}

function questions(tables: MemoryTables): Pick<HumanInputPort, 'openQuestion' | 'listQuestions' | 'answerQuestion'> {
  return {
    async openQuestion(input, owed) {
      const write = tables.begin();
      tables.runRow(input.runId);
      const question: QuestionRecord & { tick: number } = {
        id: newId('q'),
        runId: input.runId,
        stepId: maybeText(input.stepId),
        planVersion: input.planVersion,
        question: text(input.question),
        answer: null,
        answeredBy: null,
        createdAt: write.now,
        answeredAt: null,
        tick: write.tick,
      };
      oweAlong(tables, question, 'question', owed, write);
      tables.questions.set(question.id, question);
      return untick(question);
    },
    async listQuestions(runId) {
      return [...tables.questions.values()]
        .filter((q) => q.runId === runId)
        .sort(oldestFirst)
        .map(untick);
    },
    async answerQuestion(input) {
      const write = tables.begin();
      const [open] = [...tables.questions.values()].filter((q) => q.runId === input.runId && q.answeredAt === null).sort(oldestFirst);
      if (!open) return undefined;
      Object.assign(open, { answer: text(input.answer), answeredBy: text(input.userId), answeredAt: write.now });
      return untick(open);
    },
  };
}

function confirmations(tables: MemoryTables): Pick<HumanInputPort, 'requestConfirmation' | 'decideConfirmation' | 'listConfirmations'> {
  return {
    async requestConfirmation(request) {
      const { owe, owner, leaseMs, ...input } = request;
      const write = tables.begin();
      const step = tables.steps.get(stepKey(input));
      if (step?.status !== 'pending') return undefined;
      Object.assign(step, { status: 'waiting', error: { ...AWAITING } });
      // One decided earlier for other values is replaced by this request.
      const confirmation: ConfirmationRecord & { tick: number } = {
        runId: input.runId,
        planVersion: input.planVersion,
        stepId: input.stepId,
        tool: text(input.tool),
        risk: input.risk,
        targets: json(input.targets),
        lateBound: json(input.lateBound),
        status: 'pending',
        decidedBy: null,
        createdAt: write.now,
        decidedAt: null,
        tick: write.tick,
      };
      tables.confirmations.set(stepKey(input), confirmation);
      oweMessages(tables, { runId: input.runId, owe: [owe], owner, leaseMs }, write);
      return untick(confirmation);
    },
    async decideConfirmation(input) {
      const write = tables.begin();
      const run = tables.runs.get(input.runId)?.run;
      if (!run || !DECIDABLE.includes(run.status)) return undefined;
      if (run.status !== 'rolling-back' && run.currentPlanVersion !== input.planVersion) return undefined;
      // The step must wait for this Confirm now: a rolling-back run waits only on its rollback steps.
      const step = tables.steps.get(stepKey(input));
      if (step?.status !== 'waiting' || step.kind !== (run.status === 'rolling-back' ? 'rollback' : 'forward')) return undefined;
      const confirmation = tables.confirmations.get(stepKey(input));
      if (confirmation?.status !== 'pending') return undefined;
      Object.assign(confirmation, { status: input.decision, decidedBy: text(input.userId), decidedAt: write.now });
      if (input.decision === 'confirmed') Object.assign(step, { status: 'pending', error: null });
      return untick(confirmation);
    },
    async listConfirmations(runId) {
      return [...tables.confirmations.values()]
        .filter((c) => c.runId === runId)
        .sort((a, b) => byTick(a, b) || a.stepId.localeCompare(b.stepId))
        .map(untick);
    },
  };
}

export function memoryHumanInput(tables: MemoryTables): HumanInputPort {
  return { ...escalations(tables), ...questions(tables), ...confirmations(tables), ...memoryWaitMessages(tables) };
}
