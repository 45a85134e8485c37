/** Reassign's blocks: the button on every wait for a person, the modal, and the "Waiting on" line, within Slack's limits. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { WaitRef } from '../../src/agent/ports/run-store.ts';
import { MessageBlocksSchema, ModalViewSchema, type MessageBlock } from '../../src/bot/views/limits.ts';
import { escalationMessage } from '../../src/bot/views/run/escalation.ts';
import { questionMessage } from '../../src/bot/views/run/question.ts';
import {
  ADDRESSEE_BLOCK,
  decodeReassignButton,
  decodeReassignModal,
  REASSIGN_ACTION,
  reassignButton,
  reassignModal,
  withAddressee,
} from '../../src/bot/views/run/reassign.ts';
import { targetConfirmationMessages } from '../../src/bot/views/run/target-confirmation.ts';
import { makeEscalation, makeOffer } from '../fakes/slack-fixtures.ts';

const reassignOf = (blocks: MessageBlock[]) =>
  blocks.flatMap((b) => (b.type === 'actions' ? b.elements : [])).find((button) => button.action_id === REASSIGN_ACTION);
const problems = (blocks: unknown[]) => {
  const result = MessageBlocksSchema.safeParse(blocks);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('the Reassign button', () => {
  it('is on an escalation, a question and a Confirm, each naming its own wait', () => {
    const escalation = escalationMessage({ escalation: makeEscalation(), offer: makeOffer(), escalateTo: 'SOPS' });
    expect(decodeReassignButton(reassignOf(escalation.blocks)?.value)).toEqual({ kind: 'escalation', escalationId: 'esc_1' });

    const question = questionMessage({ runId: 'run_1', asked: 'UREQ', questions: ['Which cluster?', 'Which region?'], questionId: 'q_1' });
    expect(decodeReassignButton(reassignOf(question.blocks)?.value)).toEqual({ kind: 'question', runId: 'run_1', questionId: 'q_1' });

    const confirmation = {
      runId: 'run_1',
      planVersion: 2,
      stepId: 's3',
      tool: 'github_merge_pull',
      risk: 'destructive' as const,
      targets: { repo: 'acme/api', number: 7 },
      lateBound: ['number'],
      status: 'pending' as const,
      decidedBy: null,
      createdAt: new Date(),
      decidedAt: null,
    };
    const confirm = targetConfirmationMessages({ confirmation, escalateTo: undefined }).at(-1)!;
    expect(decodeReassignButton(reassignOf(confirm.blocks)?.value)).toEqual({ kind: 'confirm', runId: 'run_1', planVersion: 2, stepId: 's3' });
    for (const view of [escalation, question, confirm]) expect(problems(view.blocks)).toEqual([]);
  });

  it('an answered question has no Reassign', () => {
    const answered = questionMessage({ runId: 'run_1', asked: 'UREQ', questions: ['Which cluster?'] }, { by: 'UREQ', answer: 'staging' });
    expect(reassignOf(answered.blocks)).toBeUndefined();
  });

  it.each([
    ['not JSON', 'nope'],
    ['an unknown kind', '{"w":"x","e":"esc_1"}'],
    ['a missing id', '{"w":"e"}'],
    ['an extra field', '{"w":"e","e":"esc_1","to":"U1"}'],
    ['a question id that is not one', '{"w":"q","r":"run_1","k":"../../etc"}'],
    ['a version that is not a number', '{"w":"c","r":"run_1","v":"2","s":"s1"}'],
  ])('refuses %s', (_what, value) => {
    expect(decodeReassignButton(value)).toBeUndefined();
  });

  it('round-trips any wait within the button value limit', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 255 }),
        fc.string({ minLength: 1, maxLength: 255 }),
        fc.integer({ min: 1, max: 1e6 }),
        (runId, stepId, planVersion) => {
          for (const ref of [
            { kind: 'escalation', escalationId: runId },
            { kind: 'question', runId, questionId: `q_${planVersion.toString(36)}` },
            { kind: 'approval', runId, planVersion },
            { kind: 'confirm', runId, planVersion, stepId },
          ] as WaitRef[]) {
            const button = reassignButton(ref);
            expect(button.value!.length).toBeLessThanOrEqual(2000);
            expect(decodeReassignButton(button.value)).toEqual(ref);
          }
        },
      ),
    );
  });
});

describe('the Reassign modal', () => {
  it('has one user picker and carries the wait and its message, within limits', () => {
    const target = {
      ref: { kind: 'confirm', runId: 'r'.repeat(255), planVersion: 3, stepId: 's'.repeat(255) } as WaitRef,
      channel: 'C1',
      ts: '1700000000.000100',
    };
    const modal = reassignModal(target);
    expect(ModalViewSchema.safeParse(modal).success).toBe(true);
    const inputs = modal.blocks.filter((b) => b.type === 'input');
    expect(inputs.map((b) => (b.type === 'input' ? b.element.type : ''))).toEqual(['users_select']);
    expect(decodeReassignModal(modal.private_metadata)).toEqual(target);
    expect(decodeReassignModal('{"ref":{"w":"e","e":"esc_1"},"c":"C1","t":"not-a-ts"}')).toBeUndefined();
  });
});

describe('the "Waiting on" line', () => {
  it('goes above the buttons once, and a later hand-over replaces it', () => {
    const { blocks } = escalationMessage({ escalation: makeEscalation(), offer: makeOffer(), escalateTo: 'SOPS' });
    const once = withAddressee(blocks, 'UB', 'UA');
    const twice = withAddressee(once, 'UC', 'UB');
    expect(problems(twice)).toEqual([]);
    const lines = twice.filter((b) => (b as { block_id?: string }).block_id === ADDRESSEE_BLOCK);
    expect(JSON.stringify(lines)).toBe(
      JSON.stringify([
        { type: 'context', elements: [{ type: 'mrkdwn', text: ':arrow_right: Waiting on <@UC> — reassigned by <@UB>' }], block_id: ADDRESSEE_BLOCK },
      ]),
    );
    expect(twice.findIndex((b) => b.type === 'actions')).toBe(twice.findIndex((b) => (b as { block_id?: string }).block_id === ADDRESSEE_BLOCK) + 1);
    expect(twice).toHaveLength(blocks.length + 1);
  });
});
