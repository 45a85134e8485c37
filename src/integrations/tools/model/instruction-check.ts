/**
 * A model step's `instruction` is what the executor model follows as its task. What earlier steps returned (a
 * pull request's title, a page's text) may be a stranger's words, and reaches the model only as data, in the
 * step's `inputs` (CONTRACT §4, §6). So a plan whose instruction holds a reference is refused when it is checked:
 * it never reaches approval, and the planner's repair loop reads this problem and moves the reference.
 */
import { findReferences } from '../../../agent/model/references.ts';

/** The problem with a reference in `instruction` (`field: what is wrong`, as checkPlanArgs says it), or none. */
export function referencesInInstruction(instruction: unknown): string[] {
  if (findReferences(instruction).references.length === 0) return [];
  return [
    'instruction: an earlier step\'s output cannot be part of the instruction, which the model follows as its task; put earlier outputs in `inputs` (e.g. inputs: { title: "{{steps.s1.output.title}}" }), which the model reads as data',
  ];
}
