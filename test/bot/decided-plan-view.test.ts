/**
 * A decided message's blocks (review finding 12): a plan keeps only View full plan, still bound to its
 * version, and stays within Slack's limits; a Confirm keeps no button at all.
 */
import { describe, expect, it } from 'vitest';
import { decodePlanRef } from '../../src/bot/views/button-values.ts';
import { MessageBlocksSchema, type MessageBlock } from '../../src/bot/views/limits.ts';
import { decidedBlocks, hasLiveButtons } from '../../src/bot/views/plan/decided-blocks.ts';
import { FULL_PLAN_ACTION } from '../../src/bot/views/plan/full-plan-modal.ts';
import { planMessages } from '../../src/bot/views/plan/plan-message.ts';
import { targetConfirmationMessages } from '../../src/bot/views/run/target-confirmation.ts';
import { context } from '../../src/bot/views/text.ts';
import { makePlan, makeProposal } from '../fakes/slack-fixtures.ts';

const buttons = (blocks: readonly MessageBlock[]) => blocks.flatMap((b) => (b.type === 'actions' ? b.elements : []));

describe('a decided message', () => {
  it('a plan keeps View full plan, bound to its version, and nothing else; within limits', () => {
    const [view] = planMessages(makeProposal(makePlan(3), { version: 2 }));
    expect(hasLiveButtons(view!.blocks)).toBe(true);
    const decided = [...decidedBlocks(view!.blocks), context(':white_check_mark: Approved by <@U1>')];
    expect(MessageBlocksSchema.safeParse(decided).success).toBe(true);
    expect(buttons(decided).map((b) => b.action_id)).toEqual([FULL_PLAN_ACTION]);
    expect(decodePlanRef(buttons(decided)[0]!.value)).toMatchObject({ runId: 'run_1', planVersion: 2 });
    expect(hasLiveButtons(decided)).toBe(false);
  });

  it('a Confirm keeps no button', () => {
    const confirmation = {
      runId: 'run_1',
      planVersion: 1,
      stepId: 's2',
      tool: 'change_thing',
      stepTitle: 'Change the thing',
      risk: 'write' as const,
      targets: { target: 'prod-eu' },
      lateBound: ['target'],
      status: 'pending' as const,
      decidedBy: null,
      decidedAt: null,
      createdAt: new Date(),
    };
    const [view] = targetConfirmationMessages({ confirmation: confirmation as never, escalateTo: undefined });
    expect(hasLiveButtons(view!.blocks)).toBe(true);
    expect(buttons(decidedBlocks(view!.blocks))).toEqual([]);
    expect(decidedBlocks(view!.blocks).some((b) => b.type === 'actions')).toBe(false);
  });
});
