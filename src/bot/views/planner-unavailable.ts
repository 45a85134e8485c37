import { z } from 'zod';
import type { MessageView } from './limits.ts';
import type { Text } from '../../agent/text/text.ts';
import { section, storedWords } from './text.ts';

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
