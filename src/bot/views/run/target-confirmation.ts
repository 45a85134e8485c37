import type { ConfirmationRecord } from '../../../agent/ports/run-store.ts';
import { encodeStepRef } from '../button-values.ts';
import type { Block, MessageView } from '../limits.ts';
import { lineSections, splitIntoMessages } from '../message-split.ts';
import { RISK_BADGE } from '../plan/step-format.ts';
import { reassignButton } from './reassign.ts';
import { context, escapeText, mention, section, truncate } from '../text.ts';

export const TARGET_CONFIRM_ACTION = 'target-confirm';
export const TARGET_ABORT_ACTION = 'target-abort';

/**
 * A write whose target was filled at run time: the values it will act on, in full, and Confirm /
 * Abort bound to (run, plan version, step). Too long for one message, it continues in more, the
 * buttons after the last of it.
 */
export function targetConfirmationMessages(input: { confirmation: ConfirmationRecord; escalateTo: string | undefined }): MessageView[] {
  const { confirmation } = input;
  // The step by its sentence, as the plan showed it (its id and tool stay in the full plan view and the logs).
  const named = confirmation.stepTitle ? `“${escapeText(truncate(confirmation.stepTitle, 200))}”` : 'this step';
  const step = `${named} (${RISK_BADGE[confirmation.risk]})`;
  const who = input.escalateTo ? `${mention(input.escalateTo)} ` : '';
  const head: Block[] = [
    section(
      `:raised_hand: ${who}*Confirm what ${step} acts on*\nPart of it was filled in at run time from a person's answer or a model's text, so the plan's approval did not cover it. It will act on:`,
    ),
  ];
  const late = new Set(confirmation.lateBound);
  const lines = Object.entries(confirmation.targets).map(
    ([name, value]) => `• *${escapeText(name)}* = ${escapeText(render(value))}${late.has(name) ? '  _(filled in at run time)_' : ''}`,
  );
  const needs = confirmation.risk === 'destructive' ? 'an approver other than the requester' : 'an approver';
  const value = encodeStepRef({ runId: confirmation.runId, planVersion: confirmation.planVersion, stepId: confirmation.stepId });
  const tail: Block[] = [
    context(`Nothing runs until ${needs} confirms these exact values. *Abort* ends the run and rolls back what succeeded.`),
    {
      type: 'actions',
      block_id: `confirm-${confirmation.planVersion}-${confirmation.stepId}`.slice(0, 255),
      elements: [
        { type: 'button', text: { type: 'plain_text', text: 'Confirm' }, style: 'primary', action_id: TARGET_CONFIRM_ACTION, value },
        { type: 'button', text: { type: 'plain_text', text: 'Abort' }, style: 'danger', action_id: TARGET_ABORT_ACTION, value },
        reassignButton({ kind: 'confirm', runId: confirmation.runId, planVersion: confirmation.planVersion, stepId: confirmation.stepId }),
      ],
    },
  ];
  return splitIntoMessages({
    head,
    body: lineSections(lines),
    tail,
    text: truncate(`Confirm what ${confirmation.stepTitle ? `“${escapeText(confirmation.stepTitle)}”` : 'a step'} acts on`, 300),
    continued: (index, count) => `Confirm, continued (${index}/${count})`,
  });
}

function render(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
}
