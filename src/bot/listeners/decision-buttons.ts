import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import type { Refused } from '../../agent/model/refusal.ts';
import type { Text } from '../../agent/text/text.ts';
import type { BotDeps } from '../bot-deps.ts';
import { describeError, TRY_AGAIN } from '../surface/replies.ts';
import { clickOrigin, privateReplier } from './click-origin.ts';
import { afterAck } from './after-ack.ts';
import { replaceActions } from './plan/replace-actions.ts';
import { retireLiveCopies } from '../surface/live-copies.ts';

/** Buttons whose click is a decision the agent takes (Approve/Reject, Confirm/Abort). */
export interface DecisionButtons<Ref extends { runId: string }, Decision extends string> {
  actions: readonly (readonly [actionId: string, decision: Decision])[];
  decode(value: string | undefined): Ref | undefined;
  /** Said privately when a button's value is not one we made. */
  unrecognised: string;
  /** The log line when the decision could not be recorded. */
  failure: string;
  decide(ref: Ref, userId: string, decision: Decision): Promise<Refused<void, string, Text>>;
  /** Replaces the buttons once decided, so nobody clicks a stale one. */
  decidedLine(decision: Decision, userId: string): string;
  onDecided?(ref: Ref): void;
  /**
   * The wait may have been posted more than once (its reminder posts it again): every copy in the thread
   * with a button of these actions bound to the same value loses its buttons too.
   */
  copies?: readonly string[];
}

/** Ack at once, then let the agent decide who may; refusals and failures come back privately. */
export function registerDecisionButtons<Ref extends { runId: string }, Decision extends string>(
  app: App,
  deps: BotDeps,
  buttons: DecisionButtons<Ref, Decision>,
): void {
  for (const [actionId, decision] of buttons.actions) {
    app.action<BlockAction<ButtonAction>>(actionId, async ({ ack, body, action, client }) => {
      await ack();
      await afterAck();
      const origin = clickOrigin(body);
      if (!origin.channel) return;
      const tell = privateReplier(client, deps.logger, origin);
      const ref = buttons.decode(action.value);
      if (!ref) return tell(buttons.unrecognised);
      try {
        const result = await buttons.decide(ref, body.user.id, decision);
        if (!result.ok) return tell(result.error.message);
        buttons.onDecided?.(ref);
        const line = buttons.decidedLine(decision, body.user.id);
        await replaceActions(client, deps.logger, body, line);
        if (buttons.copies && origin.threadTs)
          await retireLiveCopies(
            client,
            deps.logger,
            { channel: origin.channel, threadTs: origin.threadTs, ...(origin.messageTs ? { except: origin.messageTs } : {}) },
            [{ button: { actionIds: buttons.copies, ...(action.value ? { value: action.value } : {}) }, after: line }],
          );
      } catch (error) {
        deps.logger.error({ err: describeError(error), runId: ref.runId }, buttons.failure);
        await tell(`Your ${decision} was not recorded: ${describeError(error)}. ${TRY_AGAIN}`);
      }
    });
  }
}
