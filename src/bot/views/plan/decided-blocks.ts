import { FULL_PLAN_ACTION } from './full-plan-modal.ts';

interface AnyBlock {
  type?: string;
  elements?: readonly unknown[];
}

/**
 * A message's blocks once what it asked is decided or over (approved, rejected, replaced, expired, the run
 * ended): its buttons go so nobody acts on it, except **View full plan**, which keeps every argument of the
 * plan reachable in full during and after the run (CONTRACT §5).
 */
export function decidedBlocks<T extends AnyBlock>(blocks: readonly T[]): T[] {
  return blocks.flatMap((block) => {
    if (block.type !== 'actions') return [block];
    const kept = (block.elements ?? []).filter((element) => (element as { action_id?: unknown }).action_id === FULL_PLAN_ACTION);
    return kept.length > 0 ? [{ ...block, elements: kept }] : [];
  });
}

/** True while the message still offers a decision (a button other than View full plan). */
export function hasLiveButtons(blocks: readonly AnyBlock[]): boolean {
  return blocks.some(
    (block) => block.type === 'actions' && (block.elements ?? []).some((element) => (element as { action_id?: unknown }).action_id !== FULL_PLAN_ACTION),
  );
}
