/**
 * Plays the people around an eval run until it ends or waits for something the golden task does not
 * give: an approver (not the requester) approves each proposed plan, escalations are resolved by the
 * task's fixed policy, plan questions get the task's answers, ask_human steps get its human answers. A task
 * whose approval is withheld is left to expire.
 */
import type { Agent } from '../agent/agent.ts';
import type { HumanInputPort } from '../agent/ports/human-input.ts';
import { FINAL_RUN_STATUSES, type Conversation, type RunRecord, type RunsPort } from '../agent/ports/runs.ts';
import type { GoldenTask } from './golden-schema.ts';

export const EVAL_REQUESTER = 'UEVALREQUESTER';
export const EVAL_APPROVER = 'UEVALAPPROVER';
/** Far more rounds than any golden task needs; a run still going after them is stuck. */
const MAX_ROUNDS = 40;

export interface PlayedRun {
  run: RunRecord;
  /** Things the harness could not do (a refused approval, a stuck run); each fails the task. */
  problems: string[];
  approvals: number;
}

export async function playPeople(deps: { agent: Agent; store: RunsPort & HumanInputPort; waitTtlS: number }, task: GoldenTask, run: RunRecord, conversation: Conversation): Promise<PlayedRun> {
  const { agent, store } = deps;
  const problems: string[] = [];
  let escalationsResolved = 0;
  let answersGiven = 0;
  let humanAnswers = 0;
  let approvals = 0;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    await agent.idle();
    const current = (await store.getRun(run.id))!;
    if (FINAL_RUN_STATUSES.includes(current.status)) return { run: current, problems, approvals };

    const open = (await store.listEscalations(run.id)).find((escalation) => escalation.status === 'open');
    if (open) {
      const action = task.onEscalation[Math.min(escalationsResolved, task.onEscalation.length - 1)]!;
      escalationsResolved++;
      const resolved = await agent.resolveEscalation({ escalationId: open.id, userId: EVAL_APPROVER, action });
      // A refused action (no replan budget left, nothing to skip) falls back to the safe one.
      if (!resolved.ok && action !== 'abort') await agent.resolveEscalation({ escalationId: open.id, userId: EVAL_APPROVER, action: 'abort' });
      continue;
    }
    if (current.status === 'awaiting-approval' && current.currentPlanVersion !== null && task.approval === 'withheld') {
      // Nobody approves: the first sweep after the plan's time to live expires it (expiry runs nothing).
      await agent.housekeep(new Date(Date.now() + (deps.waitTtlS + 60) * 1000));
      continue;
    }
    if (current.status === 'awaiting-approval' && current.currentPlanVersion !== null) {
      const decided = await agent.decide({ runId: run.id, planVersion: current.currentPlanVersion, userId: EVAL_APPROVER, decision: 'approve' });
      if (!decided.ok) return stop(`the approver could not approve v${current.currentPlanVersion}: ${decided.error}`);
      approvals++;
      continue;
    }
    if (current.status === 'awaiting-answer') {
      const text = task.answers[answersGiven++];
      if (text === undefined) return { run: current, problems, approvals }; // the plan asked; nothing more to say
      await agent.followUp({ conversation, userId: EVAL_REQUESTER, text });
      continue;
    }
    const waiting = (await store.listQuestions(run.id)).some((question) => question.answer === null && question.stepId !== null);
    if (current.status === 'paused' && waiting) {
      const text = task.humanAnswers[Math.min(humanAnswers++, task.humanAnswers.length - 1)]!;
      await agent.followUp({ conversation, userId: EVAL_APPROVER, text });
      continue;
    }
    return stop(`the run is stuck in ${current.status} with nothing for a person to do`);
  }
  return stop(`the run did not finish within ${MAX_ROUNDS} rounds of approvals and answers`);

  async function stop(problem: string): Promise<PlayedRun> {
    problems.push(problem);
    await agent.cancel({ runId: run.id, userId: EVAL_APPROVER });
    await agent.idle();
    return { run: (await store.getRun(run.id))!, problems, approvals };
  }
}
