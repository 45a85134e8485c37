/** The plan message's Reassign: on a plan waiting for approval only, naming its version; the "Waiting on" line goes above its buttons. */
import { describe, expect, it } from 'vitest';
import { MessageBlocksSchema, type MessageBlock } from '../../src/bot/views/limits.ts';
import { planMessages } from '../../src/bot/views/plan/plan-message.ts';
import { ADDRESSEE_BLOCK, decodeReassignButton, REASSIGN_ACTION, withAddressee } from '../../src/bot/views/run/reassign.ts';
import { makePlan, makeProposal } from '../fakes/slack-fixtures.ts';

const buttonsOf = (blocks: MessageBlock[]) => blocks.flatMap((b) => (b.type === 'actions' ? b.elements : []));

describe('the plan message', () => {
  it('offers Reassign for the version it shows, on the message that carries the buttons; the addressee line sits just above them', () => {
    const views = planMessages(makeProposal(makePlan(3), { version: 2 }));
    const last = views.at(-1)!;
    const reassign = buttonsOf(last.blocks).find((button) => button.action_id === REASSIGN_ACTION);
    expect(decodeReassignButton(reassign?.value)).toEqual({ kind: 'approval', runId: 'run_1', planVersion: 2 });
    expect(buttonsOf(last.blocks).map((button) => (button.text as { text: string }).text)).toEqual([
      'Approve',
      'Modify',
      'Reject',
      'View full plan',
      'Reassign',
    ]);

    const marked = withAddressee(last.blocks, 'UAPP2', 'UAPP1');
    expect(MessageBlocksSchema.safeParse(marked).success).toBe(true);
    const line = marked.findIndex((block) => (block as { block_id?: string }).block_id === ADDRESSEE_BLOCK);
    expect(marked[line + 1]?.type).toBe('actions');
    expect(JSON.stringify(marked[line])).toContain('Waiting on <@UAPP2> — reassigned by <@UAPP1>');
  });

  it('has no Reassign when nothing waits for a person (a plan that runs without a click)', () => {
    const views = planMessages(makeProposal(makePlan(2), { autoApproved: true }));
    expect(views.flatMap((view) => buttonsOf(view.blocks)).some((button) => button.action_id === REASSIGN_ACTION)).toBe(false);
  });
});
