import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import type { BotDeps } from '../../bot-deps.ts';
import { describeError, TRY_AGAIN } from '../../surface/replies.ts';
import { clickOrigin, privateReplier } from '../click-origin.ts';
import { decodePlanRef } from '../../views/button-values.ts';
import { RUNBOOK_SAVE_ACTION, runbookErrorModal, runbookLoadingModal, saveRunbookModal } from '../../views/save-runbook-modal.ts';
import { afterAck } from '../after-ack.ts';

/**
 * "Save as runbook" on a succeeded run's summary: the modal opens first (a trigger id lives 3 s), then is
 * filled with the run's task and plan from the store. The submission is handled in save-runbook-submit.ts.
 */
export function registerSaveRunbookButton(app: App, deps: BotDeps): void {
  app.action<BlockAction<ButtonAction>>(RUNBOOK_SAVE_ACTION, async ({ ack, body, action, client }) => {
    await ack();
    await afterAck();
    const tell = privateReplier(client, deps.logger, clickOrigin(body));
    const ref = decodePlanRef(action.value);
    if (!ref) {
      await tell('That button is not from a run I recognise; nothing was done.');
      return;
    }
    if (!deps.runbooks) {
      await tell('Runbooks cannot be saved on this Tandem (no runbook catalog is wired in).');
      return;
    }
    let viewId: string | undefined;
    try {
      const opened = await client.views.open({ trigger_id: body.trigger_id, view: runbookLoadingModal() });
      viewId = opened.view?.id;
    } catch (error) {
      deps.logger.warn({ err: describeError(error), runId: ref.runId }, 'could not open the Save as runbook modal');
      await tell(`I could not open the form (${describeError(error)}). Click Save as runbook again.`);
      return;
    }
    if (!viewId) return;
    try {
      const [run, version] = await Promise.all([deps.runs.getRun(ref.runId), deps.runs.getPlanVersion(ref.runId, ref.planVersion)]);
      const view =
        run && version
          ? run.status === 'succeeded'
            ? saveRunbookModal({ ref, task: run.task, plan: version.plan })
            : runbookErrorModal(`Only a run that succeeded can become a runbook; this one is ${run.status}.`)
          : runbookErrorModal(`Plan v${ref.planVersion} of run ${ref.runId} was not found.`);
      await client.views.update({ view_id: viewId, view });
    } catch (error) {
      deps.logger.error({ err: describeError(error), runId: ref.runId }, 'could not fill the Save as runbook modal');
      await client.views
        .update({ view_id: viewId, view: runbookErrorModal(`I could not load the run: ${describeError(error)}. ${TRY_AGAIN}`) })
        .catch(() => undefined);
    }
  });
}
