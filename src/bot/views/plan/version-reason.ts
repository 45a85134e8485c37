/**
 * Why a plan version was made, as the thread says it. The stored reason is written for the planner and
 * `tandem show` ("replan: s2 (Deploy web) failed: …; written by the fallback planner openai:gpt-4o because
 * …"); the thread names the step by its title and leaves the model and its numbers to `tandem show`.
 * Reasons stored before this rewrite read the same way, since it is applied when the plan is drawn.
 */
import type { Text, TextPart } from '../../../agent/text/text.ts';

/** `s2 (Deploy web) failed` after a start or a colon: the step's id, its title (or tool) in brackets, then what happened. */
const STEP_BY_ID = /(^|: )[A-Za-z][A-Za-z0-9_-]{0,39} \(([^()\n]{1,200})\) (?=failed|is a |ran but|was not run|may or may not)/g;
/** The fallback planner's model and the numbers that made it be asked. */
const FALLBACK_DETAIL = /(written by the fallback planner) \S+ because .*$/s;

export function versionReasonWords(reason: Text): Text {
  if (typeof reason === 'string') return rewrite(reason);
  return reason.map((part): TextPart => (typeof part === 'string' ? rewrite(part) : part));
}

function rewrite(text: string): string {
  return text.replace(STEP_BY_ID, (_match, before: string, title: string) => `${before}“${title}” `).replace(FALLBACK_DETAIL, '$1');
}
