import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import type { BotDeps } from '../../bot-deps.ts';
import { afterAck } from '../after-ack.ts';
import { describeError, TRY_AGAIN } from '../../surface/replies.ts';
import { clickOrigin, privateReplier } from '../click-origin.ts';
import { decodePlanRef } from '../../views/button-values.ts';
import { errorModal, loadingModal, modifyModal } from '../../views/plan/modify-modal.ts';
import { PLAN_MODIFY_ACTION } from '../../views/plan/plan-message.ts';
import { plainWords } from '../../views/text.ts';

/**
 * Modify opens the modal before anything else (a trigger id lives 3 s), then fills it with the plan
 * from the store through views.update.
 */
export function registerModifyButton(app: App, deps: BotDeps): void {
  app.action<BlockAction<ButtonAction>>(PLAN_MODIFY_ACTION, async ({ ack, body, action, client }) => {
    await ack();
    await afterAck();
    const tell = privateReplier(client, deps.logger, clickOrigin(body));
    const ref = decodePlanRef(action.value);
    if (!ref) {
      await tell('That button is not from a plan I recognise; nothing was done.');
      return;
    }
    let viewId: string | undefined;
    let hash: string | undefined;
    try {
      const opened = await client.views.open({ trigger_id: body.trigger_id, view: loadingModal(ref.planVersion) });
      viewId = opened.view?.id;
      hash = opened.view?.hash;
    } catch (error) {
      deps.logger.warn({ err: describeError(error), runId: ref.runId }, 'could not open the Modify modal');
      await tell(`I could not open the editor (${describeError(error)}). Click Modify again.`);
      return;
    }
    if (!viewId) return;
    try {
      // An expired plan can only be proposed again (CONTRACT §5): its editor does not open, as its Approve runs nothing.
      const expired = await deps.agent.modifyRefusal(ref);
      if (expired) {
        await client.views.update({ view_id: viewId, ...(hash ? { hash } : {}), view: errorModal(plainWords(expired.message)) });
        return;
      }
      const version = await deps.runs.getPlanVersion(ref.runId, ref.planVersion);
      const view = version
        ? modifyModal({ runId: ref.runId, planVersion: ref.planVersion, plan: version.plan })
        : errorModal(`Plan v${ref.planVersion} of run ${ref.runId} was not found.`);
      await client.views.update({ view_id: viewId, ...(hash ? { hash } : {}), view });
    } catch (error) {
      deps.logger.error({ err: describeError(error), runId: ref.runId }, 'could not fill the Modify modal');
      await client.views
        .update({ view_id: viewId, view: errorModal(`I could not load the plan: ${describeError(error)}. ${TRY_AGAIN}`) })
        .catch(() => undefined);
    }
  });
}
