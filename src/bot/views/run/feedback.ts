import type { types } from '@slack/bolt';
import { z } from 'zod';

export const FEEDBACK_ACTION = 'run-feedback';

type FeedbackValue = 'good' | 'bad';

/** Bound to the run and the plan version that ran, so a click on an old summary still counts for what it judged. */
export function encodeFeedback(value: FeedbackValue, runId: string, planVersion: number): string {
  return JSON.stringify({ v: value, r: runId, p: planVersion });
}

const FeedbackRef = z.object({ v: z.enum(['good', 'bad']), r: z.string().min(1).max(100), p: z.number().int().positive() });

export function decodeFeedback(raw: string | undefined): { value: FeedbackValue; runId: string; planVersion: number } | undefined {
  try {
    const parsed = FeedbackRef.safeParse(JSON.parse(raw ?? ''));
    return parsed.success ? { value: parsed.data.v, runId: parsed.data.r, planVersion: parsed.data.p } : undefined;
  } catch {
    return undefined;
  }
}

/** "Was this useful?" under a run's summary, as Slack's own feedback buttons. */
export function feedbackBlock(runId: string, planVersion: number): types.ContextActionsBlock {
  return {
    type: 'context_actions',
    block_id: 'summary-feedback',
    elements: [
      {
        type: 'feedback_buttons',
        action_id: FEEDBACK_ACTION,
        positive_button: {
          text: { type: 'plain_text', text: 'Good' },
          accessibility_label: 'This run went well',
          value: encodeFeedback('good', runId, planVersion),
        },
        negative_button: {
          text: { type: 'plain_text', text: 'Bad' },
          accessibility_label: 'This run went badly',
          value: encodeFeedback('bad', runId, planVersion),
        },
      },
    ],
  };
}
