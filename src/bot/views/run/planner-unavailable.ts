import { z } from 'zod';
import type { MessageView } from '../limits.ts';
import type { Text } from '../../../agent/text/text.ts';
import { section, storedWords, truncate } from '../text.ts';

/** The Try again button under "the planner is unavailable"; its listener plans the same task again. */
export const PLANNER_TRY_AGAIN_ACTION = 'planner_try_again';

const TryAgainSchema = z.object({ r: z.string().min(1) });

export function encodeTryAgain(runId: string): string {
  return JSON.stringify({ r: runId });
}

/** The run whose task to plan again; undefined for a value the bot did not make. */
export function decodeTryAgain(value: string | undefined): string | undefined {
  try {
    const parsed = TryAgainSchema.safeParse(JSON.parse(value ?? ''));
    return parsed.success ? parsed.data.r : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The planner's model provider did not answer (down, timing out, rate-limiting, and the fallback too
 * when one is configured). Nothing ran; one click plans the same task again, once.
 */
export function plannerUnavailableMessage(input: { runId: string; reason: Text }): MessageView {
  // The reason quotes the provider's answer: stored words, escaped whole.
  const text = `:warning: The planner is unavailable right now, so I could not plan this. Nothing ran. ${storedWords(input.reason, 600)}`;
  return {
    text,
    blocks: [
      section(text),
      {
        type: 'actions',
        block_id: 'planner_unavailable',
        elements: [
          {
            type: 'button',
            text: { type: 'plain_text', text: 'Try again' },
            action_id: PLANNER_TRY_AGAIN_ACTION,
            value: encodeTryAgain(input.runId),
            style: 'primary',
          },
        ],
      },
    ],
  };
}

/** The planner's answer stayed invalid: its problems (parser and schema errors) are for the log, not the thread. */
const INVALID_PLAN = /^The planner could not produce a valid plan/;

/**
 * Planning failed before there was a plan (no model, an invalid runbook, a planner error): the one
 * message the thread gets about it. The run's summary would only say it again, so it is not posted.
 */
export function planningFailedMessage(input: { reason: Text }): MessageView {
  const reason = input.reason;
  const first = typeof reason === 'string' ? reason : reason.map((part) => (typeof part === 'string' ? part : '')).join('');
  const said = INVALID_PLAN.test(first)
    ? 'The planner could not turn this into a valid plan. Rephrasing the task, or naming the repository and what to do with it, may help.'
    : storedWords(reason, 1500);
  const text = `:x: I could not plan this, so nothing ran. ${said}`;
  return { text: truncate(text, 300), blocks: [section(text)] };
}
