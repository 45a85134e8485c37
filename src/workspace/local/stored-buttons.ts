import { z } from 'zod';

export interface StoredButton {
  actionId: string;
  /** As the bot posted it; undefined when the button has none. */
  value: string | undefined;
  blockId: string | undefined;
}

const Button = z.object({ type: z.literal('button'), action_id: z.string(), value: z.string().optional() });
const Block = z.object({
  type: z.string(),
  block_id: z.string().optional(),
  elements: z.array(z.unknown()).optional(),
  accessory: z.unknown().optional(),
});

/**
 * The button a click names, looked up in the blocks the bot posted: in an actions block or as a
 * section's accessory, with `blockId` telling apart two blocks that reuse an action id.
 */
export function findButton(blocks: unknown[] | undefined, actionId: string, blockId: string | undefined): StoredButton | undefined {
  for (const raw of blocks ?? []) {
    const block = Block.safeParse(raw);
    if (!block.success || (blockId !== undefined && block.data.block_id !== blockId)) continue;
    const candidates = block.data.type === 'actions' ? (block.data.elements ?? []) : block.data.type === 'section' ? [block.data.accessory] : [];
    for (const candidate of candidates) {
      const button = Button.safeParse(candidate);
      if (button.success && button.data.action_id === actionId) {
        return { actionId, value: button.data.value, blockId: block.data.block_id };
      }
    }
  }
  return undefined;
}
