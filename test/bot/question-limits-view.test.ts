/**
 * A question's Answer button and its modal carry the question inside Slack's limits whatever it holds
 * (review finding 9): quotes, backslashes and newlines take two characters each once encoded as JSON,
 * so a 1,610-character question of quoted digits was refused by Slack (invalid_blocks) and never posted.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LIMITS, MessageBlocksSchema, ModalViewSchema } from '../../src/bot/views/limits.ts';
import { answerModal, decodeAnswerButton, decodeQuestionRef, questionMessage, QUESTION_ANSWER_ACTION } from '../../src/bot/views/run/question.ts';

function answerButtonValue(questions: string[]): string {
  const view = questionMessage({ runId: 'run_01J9Z8Y7X6W5V4T3S2R1Q0P9N8', asked: 'U0123456789', questions, questionId: 'q_01J9Z8Y7X6W5V4T3S2R1Q0P9N8' });
  const result = MessageBlocksSchema.safeParse(view.blocks);
  expect(result.success ? [] : result.error.issues.map((issue) => issue.message)).toEqual([]);
  const button = view.blocks.flatMap((block) => (block.type === 'actions' ? block.elements : [])).find((b) => b.action_id === QUESTION_ANSWER_ACTION);
  return button!.value!;
}

/** The question as the button carries it: all of it, or a prefix of it ending in "…". */
function isKeptOf(kept: string, question: string): boolean {
  return kept === question || (kept.endsWith('…') && question.startsWith(kept.slice(0, -1)));
}

/** Characters that grow when encoded come often; any other text too. */
const awkward = fc.oneof(
  { arbitrary: fc.constantFrom('"', '\\', '\n', '\t', '\u0000', '\u2028'), weight: 6 },
  { arbitrary: fc.constantFrom('é', '😀', '<@U1>', '&', ' ', 'a'), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 1 },
);
const question = fc.array(awkward, { maxLength: 2500, size: 'max' }).map((parts) => parts.join(''));

describe('a question within Slack limits', () => {
  it('the review case: 400 quoted digits fit the button and the modal, and the question is still there to read', () => {
    const q = 'Which one? ' + Array.from({ length: 400 }, (_, i) => `"${i % 10}"`).join(' ');
    expect(q.length).toBeGreaterThan(1600);
    const value = answerButtonValue([q]);
    expect(value.length).toBeLessThanOrEqual(LIMITS.buttonValue);
    const decoded = decodeAnswerButton(value)!;
    expect(decoded.runId).toBe('run_01J9Z8Y7X6W5V4T3S2R1Q0P9N8');
    expect(decoded.asked).toBe('U0123456789');
    expect(decoded.question.startsWith('Which one? "0" "1"')).toBe(true);
    expect(isKeptOf(decoded.question, q)).toBe(true);
  });

  it('any question: the button value is at most 2,000 characters, decodes, and keeps a prefix of the question', () => {
    fc.assert(
      fc.property(fc.array(question, { minLength: 1, maxLength: 3 }), (questions) => {
        const value = answerButtonValue(questions);
        expect(value.length).toBeLessThanOrEqual(LIMITS.buttonValue);
        const decoded = decodeAnswerButton(value);
        expect(decoded).toBeDefined();
        expect(isKeptOf(decoded!.question, questions.join('\n'))).toBe(true);
      }),
      { numRuns: 200, endOnFailure: true },
    );
  });

  it('a modal for 1,500 backslashes (3,000 characters encoded) still opens', () => {
    const modal = answerModal({ r: 'run_1', c: 'C0123456789', t: '1700000000.000100', q: '\\'.repeat(1500) });
    expect(ModalViewSchema.safeParse(modal).success).toBe(true);
    expect(decodeQuestionRef(modal.private_metadata)?.q.startsWith('\\\\')).toBe(true);
  });

  it("any question: the modal's private_metadata is at most 3,000 characters and decodes to the message it marks", () => {
    fc.assert(
      fc.property(question, fc.string({ maxLength: 40 }), (q, extra) => {
        // A button drawn before the limit was measured may carry more than fits; the modal still opens.
        const modal = answerModal({ r: 'run_1', c: 'C0123456789', t: '1700000000.000100', q: q + extra + q });
        expect(ModalViewSchema.safeParse(modal).success).toBe(true);
        expect(modal.private_metadata!.length).toBeLessThanOrEqual(LIMITS.privateMetadata);
        const ref = decodeQuestionRef(modal.private_metadata)!;
        expect(ref).toMatchObject({ r: 'run_1', c: 'C0123456789', t: '1700000000.000100' });
        expect(isKeptOf(ref.q, q + extra + q)).toBe(true);
      }),
      { numRuns: 200, endOnFailure: true },
    );
  });
});
