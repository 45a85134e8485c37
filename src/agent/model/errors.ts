/** Kinds of model failure the agent decides on; each message is fit to show a person. */
export type LlmErrorKind =
  | 'invalid-output' // the answer did not parse or match the schema; `raw` holds it for a repair round
  | 'refusal'
  | 'max-tokens'
  | 'timeout'
  | 'rate-limited'
  | 'unavailable' // 5xx storm, connection refused, garbage
  | 'not-configured'
  | 'budget';

export class LlmError extends Error {
  override readonly name = 'LlmError';
  constructor(
    readonly kind: LlmErrorKind,
    message: string,
    readonly details: { raw?: string; issues?: string[]; provider?: string; model?: string; status?: number } = {},
  ) {
    super(message);
  }
}

export type Result<T, E = string> = { ok: true; value: T } | { ok: false; error: E };
