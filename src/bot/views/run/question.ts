/**
 * A question the run asks a person (the plan's questions, or an `ask_human` step): the question, who
 * is asked, and an **Answer** button that opens a modal. Once answered, the message says who answered
 * and what, and the button is gone. Mentioning the bot in the thread still answers too.
 */
import { z } from 'zod';
import { LIMITS, type MessageView, type ModalView } from '../limits.ts';
import { reassignButton } from './reassign.ts';
import { context, escapeText, mention, plainText, section, truncate } from '../text.ts';

export const QUESTION_ANSWER_ACTION = 'question-answer';
export const QUESTION_CALLBACK = 'question-answer-modal';
export const ANSWER_BLOCK = 'answer';
export const ANSWER_INPUT = 'answer-text';

export interface QuestionInput {
  runId: string;
  /** Who is asked (the requester); an approver may answer too. */
  asked: string;
  questions: readonly string[];
  /** The stored question's id: its Answer and Reassign name it (none: a message drawn without one offers no Reassign). */
  questionId?: string;
}

export interface Answered {
  by: string;
  answer: string;
}

/**
 * The button carries the run, the question and who was asked (so nothing is looked up to show or mark it), and the
 * stored question's id `i`, so that the answer goes to this question when several are open (absent on buttons
 * drawn before it was carried, and on a message drawn without one: the answer then goes to the oldest open one).
 */
const ButtonValueSchema = z.object({ r: z.string().min(1), q: z.string(), a: z.string().optional(), i: z.string().min(1).optional() });
/** The modal carries the run, the question message (to mark it answered), the question and its id, from the button. */
const ModalMetadataSchema = z.object({ r: z.string().min(1), c: z.string().min(1), t: z.string().min(1), q: z.string(), i: z.string().min(1).optional() });

export type QuestionRef = z.infer<typeof ModalMetadataSchema>;

function decode<T>(schema: z.ZodType<T>, value: string | undefined): T | undefined {
  try {
    const parsed = schema.safeParse(JSON.parse(value ?? ''));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export function decodeAnswerButton(value: string | undefined): { runId: string; question: string; asked?: string; questionId?: string } | undefined {
  const parsed = decode(ButtonValueSchema, value);
  return parsed && { runId: parsed.r, question: parsed.q, ...(parsed.a ? { asked: parsed.a } : {}), ...(parsed.i ? { questionId: parsed.i } : {}) };
}

export function decodeQuestionRef(value: string | undefined): QuestionRef | undefined {
  return decode(ModalMetadataSchema, value);
}

function questionLines(questions: readonly string[]): string {
  return questions.length === 1 ? escapeText(questions[0]!) : questions.map((q) => `• ${escapeText(q)}`).join('\n');
}

/** The question in the thread: open with an Answer button, or answered with who answered. */
export function questionMessage(input: QuestionInput, answered?: Answered): MessageView {
  const asking = `:question: ${mention(input.asked)}, ${input.questions.length === 1 ? 'a question before I go on' : 'some questions before I go on'}:`;
  const body = truncate(`${asking}\n${questionLines(input.questions)}`, 2900);
  if (answered) {
    const said = `:white_check_mark: Answered by ${mention(answered.by)}: ${escapeText(truncate(answered.answer.replace(/\s+/g, ' '), 500))}`;
    return { text: truncate(`Answered by ${mention(answered.by)}`, 300), blocks: [section(body), context(said)] };
  }
  const value = fittedJson(
    { r: input.runId, q: input.questions.join('\n'), a: input.asked, ...(input.questionId ? { i: input.questionId } : {}) },
    LIMITS.buttonValue,
  );
  return {
    text: truncate(`${mention(input.asked)} ${escapeText(input.questions.join(' '))}`, 300),
    blocks: [
      section(body),
      {
        type: 'actions',
        block_id: 'question-actions',
        elements: [
          { type: 'button', text: { type: 'plain_text', text: 'Answer' }, style: 'primary', action_id: QUESTION_ANSWER_ACTION, value },
          ...(input.questionId ? [reassignButton({ kind: 'question', runId: input.runId, questionId: input.questionId })] : []),
        ],
      },
      context('Or mention me in this thread with your answer.'),
    ],
  };
}

/** The Answer modal: the question, one text field. */
export function answerModal(ref: QuestionRef): ModalView {
  return {
    type: 'modal',
    callback_id: QUESTION_CALLBACK,
    title: plainText('Answer', LIMITS.viewTitle),
    submit: plainText('Send answer', LIMITS.viewTitle),
    close: plainText('Cancel', LIMITS.viewTitle),
    private_metadata: fittedJson(ref, LIMITS.privateMetadata),
    blocks: [
      section(`*Question:*\n${escapeText(truncate(ref.q, 2800))}`),
      {
        type: 'input',
        block_id: ANSWER_BLOCK,
        label: plainText('Your answer', LIMITS.inputLabel),
        element: { type: 'plain_text_input', action_id: ANSWER_INPUT, multiline: true, max_length: 2000 },
      },
    ],
  };
}

/**
 * The value as JSON within Slack's `limit` (a button value's 2,000 characters, a modal's 3,000), its question
 * `q` cut as little as needed: quotes, backslashes and newlines each take two characters once encoded, so a
 * question is measured encoded, never by its own length. Cut at a code point, never inside a surrogate pair.
 */
function fittedJson<T extends { q: string }>(value: T, limit: number): string {
  const whole = JSON.stringify(value);
  if (whole.length <= limit) return whole;
  const points = Array.from(value.q);
  const encoded = (kept: number) => JSON.stringify({ ...value, q: `${points.slice(0, kept).join('')}…` });
  // The longest prefix whose encoding fits: encoded length only grows with the prefix.
  let low = 0;
  let high = points.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (encoded(middle).length <= limit) low = middle;
    else high = middle - 1;
  }
  return encoded(low);
}
