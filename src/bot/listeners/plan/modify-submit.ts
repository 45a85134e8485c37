import type { App } from '@slack/bolt';
import type { Refused } from '../../../agent/model/refusal.ts';
import { joined, type Text, words } from '../../../agent/text/text.ts';
import type { BotDeps } from '../../bot-deps.ts';
import { planErrors, parsePlanYaml, readModifySubmission } from '../../modify-submission.ts';
import { describeError, tellPrivately, TRY_AGAIN } from '../../surface/replies.ts';
import type { SlackClient } from '../../surface/slack-client.ts';
import { INSTRUCTION_BLOCK, MODIFY_CALLBACK } from '../../views/plan/modify-modal.ts';

/** How long the modal waits for the agent's check before closing and reporting later (Slack allows 3 s). */
const CHECK_BUDGET_MS = 2000;

/**
 * A Modify submission: a free-text instruction goes to the planner; otherwise the YAML is parsed and
 * checked while the modal is still open, so a mistake shows as a field error with the person's text kept.
 */
export function registerModifySubmit(app: App, deps: BotDeps): void {
  app.view(MODIFY_CALLBACK, async ({ ack, body, view, client }) => {
    const submission = readModifySubmission(view);
    const userId = body.user.id;
    if (!submission) {
      await ack({ response_action: 'errors', errors: { [INSTRUCTION_BLOCK]: 'This editor is out of date; close it and click Modify again.' } });
      return;
    }
    const { ref } = submission;
    if (submission.instruction) {
      await ack();
      await report(client, deps, ref.runId, userId, () => deps.agent.revisePlan({ ...ref, userId, instruction: submission.instruction }));
      return;
    }
    const parsed = parsePlanYaml(submission.parts);
    if (!parsed.ok) {
      await ack({ response_action: 'errors', errors: Object.keys(parsed.error).length ? parsed.error : { [INSTRUCTION_BLOCK]: 'Write what to change.' } });
      return;
    }
    // Whatever the YAML holds, the modal is answered: a check that throws is a field error too.
    const checked = await withinBudget(deps.agent.checkEdit({ ...ref, plan: parsed.value })).catch((error: unknown) => ({
      ok: false as const,
      error: [{ code: 'check-failed', message: `this plan could not be checked: ${describeError(error)}` }],
    }));
    if (checked && !checked.ok) {
      await ack({
        response_action: 'errors',
        errors: planErrors(
          submission.parts,
          checked.error.map((problem) => problem.message),
        ),
      });
      return;
    }
    await ack();
    await report(client, deps, ref.runId, userId, async () => {
      const edited = await deps.agent.editPlan({ ...ref, userId, plan: parsed.value });
      return edited.ok
        ? { ok: true, value: undefined }
        : {
            ok: false,
            error: {
              code: 'edit-refused',
              message: words`Your edit was not saved: ${joined(
                edited.error.map((problem) => problem.message),
                '; ',
              )}`,
            },
          };
    });
  });
}

async function withinBudget<T>(promise: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), CHECK_BUDGET_MS);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** After the modal closed, a refusal or failure is told privately in the run's thread. */
async function report(client: SlackClient, deps: BotDeps, runId: string, userId: string, work: () => Promise<Refused<void, string, Text>>): Promise<void> {
  let message: Text | undefined;
  try {
    const result = await work();
    if (!result.ok) message = result.error.message;
  } catch (error) {
    deps.logger.error({ err: describeError(error), runId }, 'plan edit failed');
    message = `Your change was not saved: ${describeError(error)}. ${TRY_AGAIN}`;
  }
  if (!message) return;
  const run = await deps.runs.getRun(runId).catch(() => undefined);
  if (run) await tellPrivately(client, deps.logger, { channel: run.conversation.channel, user: userId, threadTs: run.conversation.threadTs, text: message });
  else deps.logger.warn({ runId, userId }, 'could not tell the person their edit failed: run not found');
}
