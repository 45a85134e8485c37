import { describe, expect, it } from 'vitest';
import { followUpText } from '../../src/bot/listeners/messages/mention.ts';

describe('the words of a follow-up in a run’s thread', () => {
  it('drops the mentions in front (the bot, a colleague, a labelled mention) so "cancel" is seen and an answer is only the answer', () => {
    expect(followUpText('<@U2> cancel')).toBe('cancel');
    expect(followUpText('  <@UBOT> <@W3|sam>  v1.4.0 ')).toBe('v1.4.0');
  });

  it('keeps a mention inside the answer: it names someone the answer is about', () => {
    expect(followUpText('ask <@U2> first')).toBe('ask <@U2> first');
  });
});
