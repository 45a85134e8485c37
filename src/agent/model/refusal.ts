/**
 * Why something the agent was asked to do did not happen: a code that code and tests branch on, and
 * beside it the words a person is shown (exactly the sentence they always saw). Codes are string-literal
 * unions per module, so a caller can tell "not an approver" from "the plan changed" without reading prose.
 */
import type { Result } from './errors.ts';

export interface Refusal<Code extends string, Message = string> {
  code: Code;
  message: Message;
}

/** `{ ok: false, error: { code, message } }`, typed for a Result of any value. */
export function refuse<Code extends string, Message = string>(code: Code, message: Message): { ok: false; error: Refusal<Code, Message> } {
  return { ok: false, error: { code, message } };
}

export type Refused<T, Code extends string, Message = string> = Result<T, Refusal<Code, Message>>;
