import type { App } from '@slack/bolt';
import type { BotDeps } from '../../bot-deps.ts';
import { decodeStepRef } from '../../views/button-values.ts';
import { TARGET_ABORT_ACTION, TARGET_CONFIRM_ACTION } from '../../views/run/target-confirmation.ts';
import { mention } from '../../views/text.ts';
import { registerDecisionButtons } from '../decision-buttons.ts';

/** Confirm / Abort of a target filled in at run time. */
export function registerConfirmActions(app: App, deps: BotDeps): void {
  registerDecisionButtons(app, deps, {
    actions: [
      [TARGET_CONFIRM_ACTION, 'confirm'],
      [TARGET_ABORT_ACTION, 'abort'],
    ],
    decode: decodeStepRef,
    unrecognised: 'That button is not from a Confirm I recognise; nothing was done.',
    failure: 'confirm decision failed',
    decide: (ref, userId, decision) => deps.agent.confirmTarget({ ...ref, userId, decision }),
    copies: [TARGET_CONFIRM_ACTION, TARGET_ABORT_ACTION],
    decidedLine: (decision, userId) =>
      decision === 'confirm' ? `:white_check_mark: Confirmed by ${mention(userId)}` : `:octagonal_sign: Aborted by ${mention(userId)}`,
  });
}
