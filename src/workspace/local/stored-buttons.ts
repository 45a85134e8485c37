import { z } from 'zod';

export interface StoredButton {
  actionId: string;
  /** As the bot posted it; undefined when the button has none. */
  value: string | undefined;
  blockId: string | undefined;
  /** Set for one of Slack's feedback buttons: the pressed button's text, which Slack sends with the click. */
  feedback?: { text: string };
}

/** Which of a `feedback_buttons` pair was pressed. */
export type FeedbackChoice = 'positive' | 'negative';

const Button = z.object({ type: z.literal('button'), action_id: z.string(), value: z.string().optional() });
const FeedbackButton = z.object({ text: z.object({ text: z.string() }), value: z.string() });
const FeedbackButtons = z.object({
  type: z.literal('feedback_buttons'),
  action_id: z.string(),
  positive_button: FeedbackButton,
  negative_button: FeedbackButton,
});
const Block = z.object({
  type: z.string(),
  block_id: z.string().optional(),
  elements: z.array(z.unknown()).optional(),
  accessory: z.unknown().optional(),
});

/**
 * The button a click names, looked up in the blocks the bot posted: in an actions block or as a
 * section's accessory, with `blockId` telling apart two blocks that reuse an action id. With `feedback`
 * it is one of the thumbs of a `feedback_buttons` element in a `context_actions` block.
 */
export function findButton(blocks: unknown[] | undefined, actionId: string, blockId: string | undefined, feedback?: FeedbackChoice): StoredButton | undefined {
  for (const raw of blocks ?? []) {
    const block = Block.safeParse(raw);
    if (!block.success || (blockId !== undefined && block.data.block_id !== blockId)) continue;
    const found = feedback ? findFeedback(block.data, actionId, feedback) : findPlain(block.data, actionId);
    if (found) return found;
  }
  return undefined;
}

function findPlain(block: z.infer<typeof Block>, actionId: string): StoredButton | undefined {
  const candidates = block.type === 'actions' ? (block.elements ?? []) : block.type === 'section' ? [block.accessory] : [];
  for (const candidate of candidates) {
    const button = Button.safeParse(candidate);
    if (button.success && button.data.action_id === actionId) return { actionId, value: button.data.value, blockId: block.block_id };
  }
  return undefined;
}

function findFeedback(block: z.infer<typeof Block>, actionId: string, choice: FeedbackChoice): StoredButton | undefined {
  if (block.type !== 'context_actions') return undefined;
  for (const candidate of block.elements ?? []) {
    const pair = FeedbackButtons.safeParse(candidate);
    if (!pair.success || pair.data.action_id !== actionId) continue;
    const pressed = choice === 'positive' ? pair.data.positive_button : pair.data.negative_button;
    return { actionId, value: pressed.value, blockId: block.block_id, feedback: { text: pressed.text.text } };
  }
  return undefined;
}
