import type { Result } from '../../../src/agent/errors.ts';
import type { Text } from '../../../src/agent/text.ts';
import { plainWords } from '../../../src/bot/views/text.ts';

/** A refusal as a person reads it (people as `<@U…>`, settings by their variable), so tests assert on the words. */
export function spoken<T>(result: Result<T, Text>): Result<T, string> {
  return result.ok ? result : { ok: false, error: plainWords(result.error) };
}
