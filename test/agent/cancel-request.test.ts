/**
 * CONTRACT §5: a mention in a run's thread "when it says 'cancel'" stops the run. A message whose meaningful
 * words (mentions, emoji, punctuation and polite filler set aside) are a cancel request cancels, wherever the
 * mentions and courtesies stand; an answer that merely uses the word in a sentence does not.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CANCEL_FILLER, isCancelRequest } from '../../src/agent/text/cancel-request.ts';

const mention = fc.constantFrom('<@UBOT>', '<@U2>', '<@W3|sam>', '<!here>', '<!subteam^S0ONCALL>', '@tandem', ':pray:');
const punctuation = fc.constantFrom('', ',', '.', '!', '?', '...', ' -', ' :)');
const filler = fc.constantFrom(...CANCEL_FILLER);
const verb = fc.constantFrom('cancel', 'stop', 'Cancel', 'STOP', 'CaNcEl');
/** Any word a person might write that is neither a cancel verb nor filler: it carries meaning of its own. */
const meaningfulWord = fc
  .stringMatching(/^[a-z][a-z0-9']{0,9}$/)
  .filter((w) => !CANCEL_FILLER.has(w.replace(/'+$/, '')) && !['cancel', 'stop'].includes(w.replace(/'+$/, '')));
/** A token of a cancel request other than its verb: a courtesy, a mention, each followed by punctuation or not. */
const around = fc.array(
  fc.tuple(fc.oneof(filler, mention), punctuation).map(([w, p]) => `${w}${p}`),
  { maxLength: 5 },
);

const sentence = (tokens: readonly string[]) => tokens.join(' ');

describe('a cancel request in a run’s thread', () => {
  it('is seen through mentions, punctuation and polite filler on either side, in any case', () => {
    fc.assert(
      fc.property(around, verb, punctuation, around, (before, v, p, after) => {
        expect(isCancelRequest(sentence([...before, `${v}${p}`, ...after]))).toBe(true);
      }),
    );
  });

  it('is not one when a meaningful word comes before the verb: an answer that uses the word in a sentence', () => {
    fc.assert(
      fc.property(around, meaningfulWord, around, verb, around, (before, word, between, v, after) => {
        expect(isCancelRequest(sentence([...before, word, ...between, v, ...after]))).toBe(false);
      }),
    );
  });

  it('is not one when "stop" is followed by a meaningful word ("stop at v2" answers a question)', () => {
    fc.assert(
      fc.property(around, fc.constantFrom('stop', 'Stop', 'STOP'), around, meaningfulWord, around, (before, v, between, word, after) => {
        expect(isCancelRequest(sentence([...before, v, ...between, word, ...after]))).toBe(false);
      }),
    );
  });

  it('is one when "cancel" is the first meaningful word, whatever follows: an order ("cancel the v2 deploy")', () => {
    fc.assert(
      fc.property(
        around,
        fc.constantFrom('cancel', 'Cancel', 'CANCEL'),
        fc.array(fc.oneof(filler, meaningfulWord, mention), { maxLength: 6 }),
        (before, v, rest) => {
          expect(isCancelRequest(sentence([...before, v, ...rest]))).toBe(true);
        },
      ),
    );
  });

  it('is never one without a cancel verb, however polite', () => {
    fc.assert(
      fc.property(around, (tokens) => {
        expect(isCancelRequest(sentence(tokens))).toBe(false);
      }),
    );
  });

  it('does not depend on the mentions: adding or removing them between words changes nothing', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(filler, verb, meaningfulWord), { maxLength: 6 }), fc.array(mention, { maxLength: 6 }), (words, mentions) => {
        const mixed = words.flatMap((word, i) => (mentions[i] ? [mentions[i], word] : [word]));
        expect(isCancelRequest(sentence(mixed))).toBe(isCancelRequest(sentence(words)));
      }),
    );
  });

  it('reads the sentences people write', () => {
    for (const text of [
      'cancel',
      '<@UBOT> please cancel',
      '@tandem cancel this run please',
      'Cancel.',
      'STOP!',
      'ok, stop it now',
      'can you cancel the run?',
      'cancel the v2 deploy',
    ])
      expect(isCancelRequest(text), text).toBe(true);
    for (const text of ["don't cancel, use v2", 'don’t stop', 'no, do not cancel', 'stop at v2', 'v2', '', '<@UBOT>', 'please'])
      expect(isCancelRequest(text), text).toBe(false);
  });
});
