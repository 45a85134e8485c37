import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import type { BotDeps } from '../bot-deps.ts';
import { afterAck } from './after-ack.ts';
import { clickOrigin, privateReplier } from './click-origin.ts';
import { describeError } from '../surface/replies.ts';
import { asSlackView, type ModalView } from '../views/limits.ts';

/** A message button that opens a modal about the wait it was drawn for (Answer, Reassign). */
export interface ModalButton<T> {
  actionId: string;
  /** The button's value, parsed (zod); undefined for a forged or unknown one. */
  decode: (value: string | undefined) => T | undefined;
  /** Told to the clicker when the value is not one of ours. */
  unrecognised: string;
  /** The modal, knowing the button and the message it is on (to mark that message afterwards). */
  modal: (button: T, message: { channel: string; ts: string }) => ModalView;
  /** Its name in the log line when Slack would not open it. */
  name: string;
  /** Told to the clicker when Slack would not open it, with Slack's reason. */
  notOpened: (why: string) => string;
}

/**
 * The button is acknowledged and the modal opened at once: a trigger id lives 3 s, so nothing is looked
 * up first; whatever the modal's submission does is checked then.
 */
export function registerModalButton<T>(app: App, deps: BotDeps, button: ModalButton<T>): void {
  app.action<BlockAction<ButtonAction>>(button.actionId, async ({ ack, body, action, client }) => {
    await ack();
    await afterAck();
    const origin = clickOrigin(body);
    const tell = privateReplier(client, deps.logger, origin);
    const decoded = button.decode(action.value);
    if (decoded === undefined || !origin.channel || !origin.messageTs) {
      await tell(button.unrecognised);
      return;
    }
    try {
      await client.views.open({ trigger_id: body.trigger_id, view: asSlackView(button.modal(decoded, { channel: origin.channel, ts: origin.messageTs })) });
    } catch (error) {
      deps.logger.warn({ err: describeError(error), channel: origin.channel }, `could not open the ${button.name} modal`);
      await tell(button.notOpened(describeError(error)));
    }
  });
}
