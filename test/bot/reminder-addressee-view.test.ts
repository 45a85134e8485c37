/** `addressed`: a wait's message posted again after a hand-over carries "Waiting on @B" above its buttons; nothing else changes. */
import { describe, expect, it } from 'vitest';
import { MessageBlocksSchema } from '../../src/bot/views/limits.ts';
import { escalationMessage } from '../../src/bot/views/run/escalation.ts';
import { questionMessage } from '../../src/bot/views/run/question.ts';
import { addressed, ADDRESSEE_BLOCK } from '../../src/bot/views/run/reassign.ts';
import { makeEscalation, makeOffer } from '../fakes/slack-fixtures.ts';

const ids = (blocks: readonly unknown[]) => blocks.map((b) => (b as { block_id?: string; type: string }).block_id ?? (b as { type: string }).type);

describe('a reminder copy of a handed-over wait', () => {
  it.each([
    ['an escalation', escalationMessage({ escalation: makeEscalation(), offer: makeOffer(), escalateTo: 'SOPS' })],
    ['a question', questionMessage({ runId: 'run_1', asked: 'UREQ', questions: ['Which cluster?'], questionId: 'q_1' })],
  ])('%s: the line goes just above the buttons, within Slack limits', (_what, view) => {
    const copy = addressed(view, { to: 'UB', by: 'UA' });
    expect(MessageBlocksSchema.safeParse(copy.blocks).success).toBe(true);
    const at = ids(copy.blocks).indexOf(ADDRESSEE_BLOCK);
    expect(copy.blocks[at + 1]?.type).toBe('actions');
    expect(JSON.stringify(copy.blocks[at])).toContain('Waiting on <@UB> — reassigned by <@UA>');
    expect(copy.text).toBe(view.text);
    expect(copy.blocks).toHaveLength(view.blocks.length + 1);
  });

  it('is the message as drawn when nobody handed it on, or when it has no buttons', () => {
    const view = questionMessage({ runId: 'run_1', asked: 'UREQ', questions: ['Which cluster?'], questionId: 'q_1' });
    expect(addressed(view, undefined)).toBe(view);
    const answered = questionMessage({ runId: 'run_1', asked: 'UREQ', questions: ['Which cluster?'] }, { by: 'UB', answer: 'staging' });
    expect(addressed(answered, { to: 'UB', by: 'UA' })).toBe(answered);
  });
});
