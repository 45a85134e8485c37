import type { Plan } from '../../agent/model/plan/plan.ts';
import { argStrings, suggestParams } from '../runbook-params.ts';
import { encodePlanRef, type PlanRef } from './button-values.ts';
import { LIMITS, type Block, type Button, type ModalView } from './limits.ts';
import { escapeText, packLines, plainText, section, truncate } from './text.ts';

export const RUNBOOK_SAVE_ACTION = 'runbook-save';
export const RUNBOOK_SAVE_CALLBACK = 'runbook-save-submit';
export const RUNBOOK_PARAMS_BLOCK = 'runbook-params';
export const RUNBOOK_PARAMS_ACTION = 'params';
export const RUNBOOK_NAME_BLOCK = 'runbook-name';
export const RUNBOOK_NAME_ACTION = 'name';

/** The summary's button: binds to the run and the plan version that succeeded. */
export function saveRunbookButton(ref: PlanRef): Button {
  return { type: 'button', text: { type: 'plain_text', text: 'Save as runbook' }, action_id: RUNBOOK_SAVE_ACTION, value: encodePlanRef(ref) };
}

/**
 * Which values of the run become parameters: the person edits `name=value` lines, prefilled with the
 * likely ones (repo, tag, ref… found in the task), and may name the runbook.
 */
export function saveRunbookModal(input: { ref: PlanRef; task: string; plan: Plan }): ModalView {
  const values = argStrings(input.plan).map(({ key, value }) => `• \`${escapeText(truncate(value, 120))}\` (${escapeText(key)})`);
  const blocks: Block[] = [
    section(`Turn *${escapeText(truncate(input.task, 500))}* into a runbook: a matching task will be planned from this plan, without a model.`),
    ...packLines(['*Values in the plan:*', ...(values.length ? values : ['_none_'])], { maxBlocks: 3, maxChars: 4000 }, (n) => `_…and ${n} more_`),
    {
      type: 'input',
      block_id: RUNBOOK_PARAMS_BLOCK,
      optional: true,
      label: plainText('Parameters, one name=value per line', LIMITS.inputLabel),
      hint: plainText(
        'Each value becomes {name} in the task and the plan: tag=v2.4.0 makes "cut release {tag}". Each value must appear in the task.',
        LIMITS.inputLabel,
      ),
      element: {
        type: 'plain_text_input',
        action_id: RUNBOOK_PARAMS_ACTION,
        multiline: true,
        max_length: LIMITS.plainTextInput,
        initial_value: truncate(suggestParams(input.task, input.plan).join('\n'), LIMITS.plainTextInput),
        placeholder: plainText('repo=acme/api', 150),
      },
    },
    {
      type: 'input',
      block_id: RUNBOOK_NAME_BLOCK,
      optional: true,
      label: plainText('Runbook name', LIMITS.inputLabel),
      hint: plainText('Letters, digits, ".", "_" or "-". Left empty, it is made from the task.', LIMITS.inputLabel),
      element: { type: 'plain_text_input', action_id: RUNBOOK_NAME_ACTION, max_length: 64, placeholder: plainText('cut-release', 150) },
    },
  ];
  return {
    type: 'modal',
    callback_id: RUNBOOK_SAVE_CALLBACK,
    title: plainText('Save as runbook', LIMITS.viewTitle),
    submit: plainText('Save', LIMITS.viewTitle),
    close: plainText('Cancel', LIMITS.viewTitle),
    private_metadata: encodePlanRef(input.ref),
    blocks,
  };
}

export function runbookLoadingModal(): ModalView {
  return {
    type: 'modal',
    callback_id: RUNBOOK_SAVE_CALLBACK,
    title: plainText('Save as runbook', LIMITS.viewTitle),
    close: plainText('Cancel', LIMITS.viewTitle),
    blocks: [section(':hourglass_flowing_sand: Loading the run…')],
  };
}

export function runbookErrorModal(message: string): ModalView {
  return {
    type: 'modal',
    callback_id: RUNBOOK_SAVE_CALLBACK,
    title: plainText('Save as runbook', LIMITS.viewTitle),
    close: plainText('Close', LIMITS.viewTitle),
    blocks: [section(`:warning: ${escapeText(truncate(message, 2000))}`)],
  };
}
