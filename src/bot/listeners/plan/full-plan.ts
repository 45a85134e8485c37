import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { planDigest } from '../../../agent/model/plan/plan-digest.ts';
import type { BotDeps } from '../../bot-deps.ts';
import { describeError, TRY_AGAIN } from '../../surface/replies.ts';
import { decodePlanRef } from '../../views/button-values.ts';
import { FULL_PLAN_ACTION, FULL_PLAN_CALLBACK, fullPlanViews } from '../../views/plan/full-plan-modal.ts';
import { asSlackBlocks, LIMITS, type ModalView } from '../../views/limits.ts';
import { plainText, section } from '../../views/text.ts';
import { afterAck } from '../after-ack.ts';
import { clickOrigin, privateReplier } from '../click-origin.ts';

/**
 * View full plan: a read-only modal with every step's exact arguments, read from the store (the
 * version the button names, as stored now, with its digest now). It opens at once with a loading
 * note (a trigger id lives 3 s) and is filled by views.update; what does not fit one modal follows
 * as private messages in the thread.
 */
export function registerFullPlanButton(app: App, deps: BotDeps): void {
  app.action<BlockAction<ButtonAction>>(FULL_PLAN_ACTION, async ({ ack, body, action, client }) => {
    await ack();
    await afterAck();
    const origin = clickOrigin(body);
    const tell = privateReplier(client, deps.logger, origin);
    const ref = decodePlanRef(action.value);
    if (!ref) return tell('That button is not from a plan I recognise; nothing was done.');
    let viewId: string | undefined;
    try {
      const opened = await client.views.open({ trigger_id: body.trigger_id, view: simpleModal(ref.planVersion, ':hourglass_flowing_sand: Loading the plan…') });
      viewId = opened.view?.id;
    } catch (error) {
      deps.logger.warn({ err: describeError(error), runId: ref.runId }, 'could not open the full plan');
      return tell(`I could not open the full plan (${describeError(error)}). Click *View full plan* again.`);
    }
    if (!viewId) return;
    try {
      const version = await deps.runs.getPlanVersion(ref.runId, ref.planVersion);
      if (!version) {
        await client.views.update({ view_id: viewId, view: simpleModal(ref.planVersion, `Plan v${ref.planVersion} of this run was not found.`) });
        return;
      }
      const views = fullPlanViews({
        planVersion: version.version,
        plan: version.plan,
        digest: await planDigest(version.plan),
        attribution: deps.attribution !== false,
      });
      await client.views.update({ view_id: viewId, view: views.modal });
      if (!origin.channel) return;
      for (const message of views.rest)
        await client.chat.postEphemeral({
          channel: origin.channel,
          user: origin.user,
          text: message.text,
          blocks: asSlackBlocks(message.blocks),
          ...(origin.threadTs ? { thread_ts: origin.threadTs } : {}),
        });
    } catch (error) {
      deps.logger.error({ err: describeError(error), runId: ref.runId }, 'could not fill the full plan');
      await client.views
        .update({ view_id: viewId, view: simpleModal(ref.planVersion, `:warning: I could not load the plan: ${describeError(error)}. ${TRY_AGAIN}`) })
        .catch(() => undefined);
    }
  });
}

function simpleModal(planVersion: number, text: string): ModalView {
  return {
    type: 'modal',
    callback_id: FULL_PLAN_CALLBACK,
    title: plainText(`Plan v${planVersion} in full`, LIMITS.viewTitle),
    close: plainText('Close', LIMITS.viewTitle),
    blocks: [section(text)],
  };
}
