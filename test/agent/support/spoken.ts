import type { Refused } from '../../../src/agent/model/refusal.ts';
import type { Text } from '../../../src/agent/text/text.ts';
import { spelled } from '../../helpers/words.ts';

/** A refusal with its words as a person reads them (people as `<@U…>`, settings by their variable), so tests can assert on the words. */
export function spoken<T, C extends string>(result: Refused<T, C, Text>): Refused<T, C> {
  return result.ok ? result : { ok: false, error: { code: result.error.code, message: spelled(result.error.message) } };
}
