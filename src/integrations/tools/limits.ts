import { redactAndCut } from '../../agent/text/redact.ts';

/** Tool outputs are data for a model and a status board: keep lists and bodies bounded. */
export const MAX_BODY_CHARS = 2_000;

/**
 * Cuts a body a stranger wrote (a PR body, a server's text). Token-shaped strings are redacted before
 * the cut, so a token that straddles it does not leave a recognisable half behind; configured secrets
 * are redacted again, whole, where the output is stored.
 */
export function truncate(text: string | null | undefined, max = MAX_BODY_CHARS): string | null {
  if (text === null || text === undefined) return null;
  return redactAndCut(text, [], max, (cut) => `… [${cut} more characters]`);
}

export function firstLine(text: string | null | undefined): string {
  return (text ?? '').split('\n', 1)[0] ?? '';
}
