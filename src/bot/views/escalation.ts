import type { EscalationAction, EscalationRecord } from '../../agent/ports/run-store.ts';
import { encodeEscalationRef } from './button-values.ts';
import type { Block, Button, MessageView } from './limits.ts';
import { context, escapeText, mention, section, storedWords, truncate } from './text.ts';

export const ESCALATION_ACTIONS: Record<EscalationAction, string> = {
  retry: 'escalation-retry',
  skip: 'escalation-skip',
  replan: 'escalation-replan',
  abort: 'escalation-abort',
};

const KIND_LABEL: Record<EscalationRecord['kind'], string> = {
  'evaluation-failed': 'A step did not do what it should',
  'low-confidence': 'The planner is not confident enough to act',
  'uncertain-side-effect': 'A change may or may not have happened',
  'step-failed': 'A step failed',
  budget: 'The run hit a budget limit',
  'replan-failed': 'Replanning failed',
  'not-approved': 'A plan version without a valid approval was about to run',
};

export interface EscalationInput {
  escalation: EscalationRecord;
  stakes: string;
  /** TANDEM_ESCALATE_TO: a user group `S…` or user `U…`. */
  escalateTo: string | undefined;
}

/** Asks a person to decide; every button carries the escalation id so it resolves exactly that one. */
export function escalationMessage(input: EscalationInput): MessageView {
  const { escalation } = input;
  const who = input.escalateTo ? `${mention(input.escalateTo)} ` : '';
  const step = escalation.stepId ? ` (step \`${escapeText(escalation.stepId)}\`)` : '';
  const value = encodeEscalationRef(escalation.id);
  const button = (action: EscalationAction, text: string, style?: 'primary' | 'danger'): Button => ({
    type: 'button',
    text: { type: 'plain_text', text },
    action_id: ESCALATION_ACTIONS[action],
    value,
    ...(style ? { style } : {}),
  });
  const blocks: Block[] = [
    section(`:rotating_light: ${who}*${KIND_LABEL[escalation.kind]}*${step}`),
    section(`*What happened:* ${storedWords(escalation.message, 1400)}`),
    section(`*What is at stake:* ${escapeText(truncate(input.stakes, 1400))}`),
    {
      type: 'actions',
      block_id: `escalation-${escalation.id}`.slice(0, 255),
      elements: [button('retry', 'Retry', 'primary'), button('skip', 'Skip'), button('replan', 'Replan'), button('abort', 'Abort', 'danger')],
    },
    context('*Retry* the step · *Skip* it and go on · *Replan* from here · *Abort* and roll back what succeeded'),
  ];
  return { text: truncate(`${who}Escalation: ${KIND_LABEL[escalation.kind]}`, 300), blocks };
}
