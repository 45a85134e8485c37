/**
 * Every message in a thread that still offers one wait's buttons (a Confirm posted again by its reminder,
 * perhaps by another replica): once that wait is decided or over, each copy loses its buttons and says
 * so, not only the one clicked. Read from the thread, so copies this process never posted are found too,
 * and a copy already rewritten (its buttons gone) is left as it is.
 */
import type { WaitRef } from '../../agent/ports/run-store.ts';
import type { RunSummary } from '../../agent/ports/surface.ts';
import type { Logger } from '../../observability/logger.ts';
import { encodeStepRef, type StepRef } from '../views/button-values.ts';
import { asSlackBlocks, type MessageView } from '../views/limits.ts';
import { decidedBlocks } from '../views/plan/decided-blocks.ts';
import { ADDRESSEE_BLOCK, REASSIGN_ACTION, reassignButton } from '../views/run/reassign.ts';
import { ESCALATION_ACTIONS } from '../views/run/escalation.ts';
import { QUESTION_ANSWER_ACTION } from '../views/run/question.ts';
import { TARGET_ABORT_ACTION, TARGET_CONFIRM_ACTION } from '../views/run/target-confirmation.ts';
import { context } from '../views/text.ts';
import { describeError } from './replies.ts';
import type { SlackClient } from './slack-client.ts';
import { buttonsOf, readThread, type ThreadMessage } from './thread-messages.ts';

/** A button of the wait: its action and, when given, its value (the wait it is bound to). */
export interface WaitButton {
  actionIds: readonly string[];
  value?: string;
}

/** One wait's buttons, and what each copy still offering them becomes. */
export interface Sweep {
  button: WaitButton;
  /** A line said under what the copy showed, or the whole message the copy becomes (an answered escalation's one line). */
  after: string | MessageView;
}

/** Several waits' copies retired in one read of the thread: a message offering a sweep's buttons becomes its `after`. */
export async function retireLiveCopies(
  client: SlackClient,
  logger: Logger,
  where: { channel: string; threadTs: string; except?: string | undefined },
  sweeps: readonly Sweep[],
): Promise<void> {
  if (sweeps.length === 0) return;
  try {
    for (const message of await readThread(client, where)) {
      const sweep = message.ts && message.ts !== where.except ? sweeps.find(({ button }) => offers(message, button)) : undefined;
      if (!sweep) continue;
      const view = typeof sweep.after === 'string' ? withLine(message, sweep.after) : sweep.after;
      await client.chat.update({ channel: where.channel, ts: message.ts!, text: view.text, blocks: asSlackBlocks(view.blocks) });
    }
  } catch (error) {
    logger.warn({ err: describeError(error), channel: where.channel }, 'could not take the buttons off every copy of a wait');
  }
}

/**
 * The run ended: every wait still offering its buttons loses them on every copy in the thread. A Confirm (it
 * expired, or the run ended another way meanwhile) is looked for when the summary says one was asked (the store's
 * word, whoever posted it), or, for a summary owed before it said so, when this process posted one (`postedHere`).
 * An escalation or a question still open at the end (a copy a reminder posted, a run aborted from another
 * escalation, an expired low-confidence plan) can only be there when the run did not succeed: an open one stops that.
 */
export function openWaitSweeps(summary: Pick<RunSummary, 'outcome' | 'confirmsAsked'>, postedHere: boolean): Sweep[] {
  const actionIds = [
    ...(postedHere || summary.confirmsAsked === true ? [TARGET_CONFIRM_ACTION, TARGET_ABORT_ACTION] : []),
    ...(summary.outcome === 'succeeded' ? [] : [...Object.values(ESCALATION_ACTIONS), QUESTION_ANSWER_ACTION]),
  ];
  return actionIds.length ? [{ button: { actionIds }, after: `Run ${summary.outcome}; this no longer waits for anyone.` }] : [];
}

/** One Confirm's copies (its buttons bound to its step), each keeping what it showed and saying why it no longer waits. */
export function confirmSweep(ref: StepRef, line: string): Sweep {
  return { button: { actionIds: [TARGET_CONFIRM_ACTION, TARGET_ABORT_ACTION], value: encodeStepRef(ref) }, after: line };
}

/**
 * One wait's copies found by its Reassign button, which every message of a wait carries (a failed undo has no other):
 * each keeps what it showed and says why it no longer waits.
 */
export function reassignSweep(ref: WaitRef, line: string): Sweep {
  return { button: { actionIds: [REASSIGN_ACTION], value: reassignButton(ref).value }, after: line };
}

/** What a copy showed (its text and blocks as Slack holds them), its buttons off, and the line under it. */
function withLine(message: ThreadMessage, line: string): { text: string; blocks: readonly unknown[] } {
  const blocks = decidedBlocks(message.blocks ?? []).filter((block) => block.block_id !== ADDRESSEE_BLOCK);
  return { text: message.text ?? line, blocks: [...blocks, context(line)] };
}

function offers(message: ThreadMessage, button: WaitButton): boolean {
  return buttonsOf(message).some(
    (element) => button.actionIds.includes(element.action_id ?? '') && (button.value === undefined || element.value === button.value),
  );
}
