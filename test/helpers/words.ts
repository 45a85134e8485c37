import type { Text } from '../../src/agent/text.ts';
import { plainWords } from '../../src/bot/views/text.ts';

/** Stored words as a person in Slack reads them: people as `<@U…>`, settings by their variable. */
export const said = (text: Text | null | undefined): string | null => (text == null ? null : plainWords(text));
