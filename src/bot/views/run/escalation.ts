import type { EscalationAnswer, EscalationRecord } from '../../../agent/ports/run-store.ts';
import type { EscalationOffer } from '../../../agent/ports/surface.ts';
import type { Text } from '../../../agent/text/text.ts';
import { ANSWER_WORDS } from '../../../agent/execution/escalation-offer.ts';
import { encodeEscalationRef, encodePlanRef } from '../button-values.ts';
import type { Block, Button, MessageView } from '../limits.ts';
import { PLAN_MODIFY_ACTION } from '../plan/plan-message.ts';
import { context, escapeText, mention, section, storedWords, truncate } from '../text.ts';
import { reassignButton } from './reassign.ts';

/** Every answer but Modify resolves the escalation through its own action id; Modify opens the plan's editor. */
export type EscalationButtonAnswer = Exclude<EscalationAnswer, 'modify'>;

export const ESCALATION_ACTIONS: Record<EscalationButtonAnswer, string> = {
  retry: 'escalation-retry',
  skip: 'escalation-skip',
  replan: 'escalation-replan',
  abort: 'escalation-abort',
  approve: 'escalation-approve',
  reject: 'escalation-reject',
  'try-again': 'escalation-try-again',
};

/** The first section's block id: a resolved escalation keeps that line and says who chose what. */
export const ESCALATION_HEADLINE_BLOCK = 'escalation-headline';

const KIND_LABEL: Record<EscalationRecord['kind'], string> = {
  'evaluation-failed': 'A step did not pass its check',
  unchecked: 'A step’s result could not be checked',
  'low-confidence': 'The planner is not confident in this plan',
  'uncertain-side-effect': 'A change may or may not have happened',
  'step-failed': 'A step failed',
  budget: 'The run reached a limit',
  'replan-failed': 'Replanning failed',
  'driver-failed': 'The run stopped on an error',
  'not-approved': 'A plan version cannot run',
  'rollback-failed': 'An undo step failed',
};

const STYLE: Partial<Record<EscalationAnswer, 'primary' | 'danger'>> = {
  retry: 'primary',
  approve: 'primary',
  'try-again': 'primary',
  abort: 'danger',
  reject: 'danger',
};

export interface EscalationInput {
  escalation: EscalationRecord;
  offer: EscalationOffer;
  /** TANDEM_ESCALATE_TO: a user group `S…` or user `U…`. */
  escalateTo: string | undefined;
}

/**
 * Asks a person to decide, with only the answers its kind can take: one sentence of what happened, what
 * already changed and what waits; the buttons, each explained once. Every escalation button carries
 * the escalation id so it resolves exactly that one; Modify opens the plan version it was posted for.
 */
export function escalationMessage(input: EscalationInput): MessageView {
  const { escalation, offer } = input;
  const who = input.escalateTo ? `${mention(input.escalateTo)} ` : '';
  const headline = `*${KIND_LABEL[escalation.kind]}*${offer.stepTitle ? `: ${escapeText(truncate(offer.stepTitle, 200))}` : ''}`;
  const blocks: Block[] = [];
  if (offer.note) blocks.push(context(`:alarm_clock: ${escapeText(offer.note)}`));
  blocks.push(section(`:rotating_light: ${headline}`, ESCALATION_HEADLINE_BLOCK));
  // Each part keeps to its share of the section's 3000 characters, escapes counted, so what changed and what waits are never cut off.
  blocks.push(section(`${who}${truncate(storedWords(offer.happened, 1200), 1400)} ${truncate(standing(offer, escalation.kind), 1400)}`));
  // A failed undo offers no answer, but it waits for someone to undo it by hand, so it can be handed on (CONTRACT §5).
  if (offer.answers.length || escalation.kind === 'rollback-failed') {
    blocks.push({
      type: 'actions',
      block_id: `escalation-${escalation.id}`.slice(0, 255),
      elements: [...offer.answers.map((answer) => button(escalation, answer, offer)), reassignButton({ kind: 'escalation', escalationId: escalation.id })],
    });
  }
  if (offer.answers.length) blocks.push(context(offer.answers.map((answer) => explain(answer, offer, escalation.kind)).join(' · ')));
  // The notification text is mrkdwn too: a title's `<!channel>` would ping from it.
  return { text: truncate(`${who}${KIND_LABEL[escalation.kind]}${offer.stepTitle ? `: ${escapeText(offer.stepTitle)}` : ''}`, 300), blocks };
}

/**
 * A resolved escalation: one line, its headline and who chose what ("Retried by @ana"). `headline` is
 * the text of the open message's headline block, when the click carried it.
 */
export function resolvedEscalationMessage(input: { headline: string | undefined; answer: EscalationAnswer; userId: string }): MessageView {
  const what = input.headline?.replace(/^:rotating_light:\s*/, '');
  const chose = `${ANSWER_WORDS[input.answer].past} by ${mention(input.userId)}`;
  const line = what ? `:ballot_box_with_check: ${what} — ${chose}` : `:ballot_box_with_check: ${chose}`;
  return { text: truncate(line, 300), blocks: [context(line)] };
}

/** An escalation another answer closed (an Abort, a new plan): one line, what it was and who closed it. */
export function closedEscalationMessage(input: { escalation: EscalationRecord; stepTitle: string | null; closedBy: Text }): MessageView {
  const what = `*${KIND_LABEL[input.escalation.kind]}*${input.stepTitle ? `: ${escapeText(truncate(input.stepTitle, 200))}` : ''}`;
  const line = `:ballot_box_with_check: ${what} — closed, nothing more to decide: ${storedWords(input.closedBy, 300)}`;
  return { text: truncate(line, 300), blocks: [context(line)] };
}

/** “A”, “A and B”, “A, B and 2 more”: step titles inside a sentence, escaped and kept short. */
function listTitles(titles: readonly string[]): string {
  const shown = titles.slice(0, 3).map((title) => `“${escapeText(truncate(title, 80))}”`);
  if (titles.length > 3) return `${shown.join(', ')} and ${titles.length - 3} more`;
  return shown.length > 1 ? `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}` : shown[0]!;
}

/** What already changed and what waits, said once, in plain words. */
function standing(offer: EscalationOffer, kind: EscalationRecord['kind']): string {
  const list = (titles: string[]) => {
    const shown = titles.slice(0, 5).map((title) => escapeText(truncate(title, 120)));
    return titles.length > 5 ? `${shown.join('; ')} and ${titles.length - 5} more` : shown.join('; ');
  };
  const may = offer.mayHaveChanged ?? [];
  // "Nothing has changed yet" only when nothing may have: a step left uncertain (or skipped so) may have taken effect.
  const nothing = kind === 'low-confidence' || may.length ? '' : 'Nothing has changed yet.';
  const changed = `${offer.changed.length ? `Already changed: ${list(offer.changed)}.` : nothing}${
    may.length ? ` May or may not have taken effect: ${list(may)}.` : ''
  }`.trim();
  const held = offer.onHold.length ? ` On hold until someone answers: ${list(offer.onHold)}.` : '';
  return `${changed}${held}`.trim();
}

function button(escalation: EscalationRecord, answer: EscalationAnswer, offer: EscalationOffer): Button {
  const style = STYLE[answer];
  const common = { type: 'button' as const, text: { type: 'plain_text' as const, text: ANSWER_WORDS[answer].label }, ...(style ? { style } : {}) };
  if (answer === 'modify')
    return { ...common, action_id: PLAN_MODIFY_ACTION, value: encodePlanRef({ runId: escalation.runId, planVersion: escalation.planVersion ?? 1 }) };
  // Approve anyway binds to the plan content this was drawn for, as the plan message's Approve does.
  const digest = answer === 'approve' ? offer.plan?.digest : undefined;
  return { ...common, action_id: ESCALATION_ACTIONS[answer], value: encodeEscalationRef(escalation.id, digest) };
}

/** What each answer does, once, naming the step where there is one. */
function explain(answer: EscalationAnswer, offer: EscalationOffer, kind: EscalationRecord['kind']): string {
  const step = offer.stepTitle ? `“${escapeText(truncate(offer.stepTitle, 120))}”` : 'the step';
  const label = `*${ANSWER_WORDS[answer].label}*`;
  switch (answer) {
    case 'retry':
      if (kind === 'driver-failed') return `${label} goes on from where the run stopped`;
      return kind === 'uncertain-side-effect' ? `${label} runs ${step} again (check first that it did not happen)` : `${label} runs ${step} again`;
    case 'skip':
      if (offer.skipAlsoSkips?.length)
        return `${label} goes on without it and also skips ${listTitles(offer.skipAlsoSkips)}, which ${offer.skipAlsoSkips.length === 1 ? 'needs' : 'need'} it`;
      return kind === 'evaluation-failed' || kind === 'unchecked' ? `${label} accepts its result and goes on` : `${label} goes on without it`;
    case 'replan':
      return kind === 'replan-failed' ? `${label} asks the planner again for a new plan for the rest` : `${label} asks the planner for a new plan for the rest`;
    case 'abort':
      if (offer.abortRollsBack) return `${label} stops the run and undoes what succeeded`;
      return offer.changed.length ? `${label} stops the run; what already changed stays` : `${label} stops the run`;
    case 'approve':
      return `${label} runs the plan as it is`;
    case 'modify':
      return `${label} opens it for editing`;
    case 'reject':
      return `${label} ends the run without running anything`;
    case 'try-again':
      return `${label} asks the planner once more`;
  }
}
