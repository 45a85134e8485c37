import type { App } from '@slack/bolt';
import type { BotDeps } from '../../bot-deps.ts';
import { decodePlanRef } from '../../views/button-values.ts';
import { PLAN_APPROVE_ACTION, PLAN_REJECT_ACTION } from '../../views/plan/plan-message.ts';
import { mention } from '../../views/text.ts';
import { registerDecisionButtons } from '../decision-buttons.ts';

/** Approve / Reject of a plan version. */
export function registerPlanActions(app: App, deps: BotDeps): void {
  registerDecisionButtons(app, deps, {
    actions: [
      [PLAN_APPROVE_ACTION, 'approve'],
      [PLAN_REJECT_ACTION, 'reject'],
    ],
    decode: decodePlanRef,
    unrecognised: 'That button is not from a plan I recognise; nothing was done.',
    failure: 'plan decision failed',
    decide: (ref, userId, decision) => deps.agent.decide({ ...ref, userId, decision }),
    onDecided: (ref) => deps.planDecided(ref.runId),
    decidedLine: (decision, userId) => `${decision === 'approve' ? ':white_check_mark: Approved' : ':no_good: Rejected'} by ${mention(userId)}`,
  });
}
