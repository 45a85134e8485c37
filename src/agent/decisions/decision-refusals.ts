/** What a person is told when their decision changed nothing, one sentence per refusal code. */
import type { DecisionRefusalCode, RunRecord } from '../ports/run-store.ts';
import type { Refusal } from '../model/refusal.ts';

/** A store refusal as the agent returns it: the code, and the sentence the person who clicked is shown. */
export function decisionRefusal(code: DecisionRefusalCode, run: RunRecord | undefined, planVersion: number | null): Refusal<DecisionRefusalCode> {
  return { code, message: refusalMessage(code, run, planVersion) };
}

function refusalMessage(code: DecisionRefusalCode, run: RunRecord | undefined, planVersion: number | null): string {
  switch (code) {
    case 'run-missing':
      return 'That run does not exist.';
    case 'plan-changed':
      return planChangedMessage(planVersion, run?.currentPlanVersion ?? null);
    case 'not-waiting':
      return `This plan is not waiting for a decision (the run is ${run?.status ?? 'gone'}); nothing was done.`;
    case 'escalation-resolved':
      return 'Someone else resolved this escalation first; nothing was done.';
    case 'nothing-to-answer':
      return 'Nothing in this run is waiting for an answer.';
    case 'already-answered':
      return 'That message already answered a question of this run.';
  }
}

export function planChangedMessage(clicked: number | null, current: number | null): string {
  const now = current === null ? 'a new version' : `v${current}`;
  return `The plan changed to ${now} while you decided; look again. Your click on v${clicked ?? '?'} ran nothing.`;
}
