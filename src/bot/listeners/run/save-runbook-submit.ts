import type { App } from '@slack/bolt';
import { z } from 'zod';
import { checkRunbookSaver } from '../../../agent/decisions/approval-policy.ts';
import type { BotDeps } from '../../bot-deps.ts';
import type { PolicyGate } from '../../../agent/decisions/policy-approval.ts';
import { describeError, tellThread, TRY_AGAIN } from '../../surface/replies.ts';
import { parseParamLines } from '../../runbook-params.ts';
import { decodePlanRef } from '../../views/button-values.ts';
import { RUNBOOK_NAME_ACTION, RUNBOOK_NAME_BLOCK, RUNBOOK_PARAMS_ACTION, RUNBOOK_PARAMS_BLOCK, RUNBOOK_SAVE_CALLBACK } from '../../views/save-runbook-modal.ts';
import { mention, plainWords } from '../../views/text.ts';

const InputValue = z.object({ value: z.string().nullish() }).optional();
const StateSchema = z.object({ values: z.record(z.string(), z.record(z.string(), InputValue)) }).optional();

/**
 * Saves the runbook while the modal is open, so a mistake (a value not in the task, a name taken) shows on
 * the field; once saved, the run's thread hears the runbook's pattern.
 */
export function registerSaveRunbookSubmit(app: App, deps: BotDeps): void {
  app.view(RUNBOOK_SAVE_CALLBACK, async ({ ack, body, view, client }) => {
    const ref = decodePlanRef(view.private_metadata);
    const state = StateSchema.safeParse(view.state);
    if (!ref || !state.success || !deps.runbooks) {
      await ack({ response_action: 'errors', errors: { [RUNBOOK_PARAMS_BLOCK]: 'This form is out of date; close it and click Save as runbook again.' } });
      return;
    }
    const values = state.data?.values ?? {};
    const params = parseParamLines(values[RUNBOOK_PARAMS_BLOCK]?.[RUNBOOK_PARAMS_ACTION]?.value ?? '');
    if (!params.ok) {
      await ack({ response_action: 'errors', errors: { [RUNBOOK_PARAMS_BLOCK]: params.error } });
      return;
    }
    const name = (values[RUNBOOK_NAME_BLOCK]?.[RUNBOOK_NAME_ACTION]?.value ?? '').trim() || undefined;
    const userId = body.user.id;
    const allowed = await checkRunbookSaver({ userId, policy: await runbookPolicy(deps, deps.policy, ref.runId) });
    if (!allowed.ok) {
      await ack({ response_action: 'errors', errors: { [RUNBOOK_PARAMS_BLOCK]: plainWords(allowed.error.message) } });
      return;
    }
    let saved;
    try {
      saved = await deps.runbooks.save({ runId: ref.runId, params: params.value, createdBy: userId, ...(name ? { name } : {}) });
    } catch (error) {
      deps.logger.error({ err: describeError(error), runId: ref.runId }, 'saving a runbook failed');
      await ack({
        response_action: 'errors',
        errors: { [RUNBOOK_PARAMS_BLOCK]: `The runbook was not saved: ${describeError(error)}. ${TRY_AGAIN}`.slice(0, 1000) },
      });
      return;
    }
    if (!saved.ok) {
      const field = /name/i.test(saved.error) && !/parameter name/i.test(saved.error) ? RUNBOOK_NAME_BLOCK : RUNBOOK_PARAMS_BLOCK;
      await ack({ response_action: 'errors', errors: { [field]: saved.error.slice(0, 1000) } });
      return;
    }
    await ack();
    deps.logger.info({ runId: ref.runId, name: saved.value.name, by: userId }, 'runbook saved from Slack');
    const run = await deps.runs.getRun(ref.runId).catch(() => undefined);
    if (!run) return;
    await tellThread(client, deps.logger, {
      channel: run.conversation.channel,
      threadTs: run.conversation.threadTs,
      text: `:books: ${mention(userId)} saved this run as runbook \`${saved.value.name}\`: "${saved.value.pattern}". A task that matches it is now planned from this runbook, without a model, and still asks for approval.`,
    });
  });
}

/** Saving a runbook is `save_runbook` on its run (a run that is gone: nobody's, so nobody may). */
async function runbookPolicy(deps: BotDeps, gate: PolicyGate, runId: string) {
  const run = await deps.runs.getRun(runId);
  return { gate, run: run ?? { id: runId, requester: '', conversation: { channel: '', threadTs: '' } } };
}
