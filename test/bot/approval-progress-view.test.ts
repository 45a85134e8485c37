import { describe, expect, it } from 'vitest';
import { MessageBlocksSchema, type MessageBlock } from '../../src/bot/views/limits.ts';
import { approvalProgressBlocks } from '../../src/bot/views/plan/approval-progress.ts';
import { planMessages } from '../../src/bot/views/plan/plan-message.ts';
import { makePlan, makeProposal } from '../fakes/slack-fixtures.ts';

const allText = (blocks: MessageBlock[]) => JSON.stringify(blocks);

describe('who can approve, on the plan message (TANDEM_POLICY)', () => {
  it('lists each step with who can approve it and the approvals still needed, within Slack limits', () => {
    const lines = ['s1 needs a member of @eng', 's2 needs two members of @api-owners (1 of 2 approvals)', 'r1: approved (rule `reads`)'];
    const [view, ...more] = planMessages(makeProposal(makePlan(3), { approvalProgress: lines }));
    expect(more).toEqual([]);
    const text = allText(view!.blocks);
    expect(text).toContain('*Who can approve:*');
    expect(text).toContain('• s2 needs two members of @api-owners (1 of 2 approvals)');
    expect(MessageBlocksSchema.safeParse(view!.blocks).success).toBe(true);
  });

  it('adds nothing when no policy is set (the settings decide, as before)', () => {
    expect(approvalProgressBlocks({})).toEqual([]);
    expect(allText(planMessages(makeProposal(makePlan(3)))[0]!.blocks)).not.toContain('Who can approve');
  });

  it('shows mention syntax in a rule’s words literally', () => {
    const text = allText(approvalProgressBlocks({ approvalProgress: ['s1 needs <!channel> (rule `x`)'] }));
    expect(text).not.toContain('<!channel>');
    expect(text).toContain('&lt;!channel&gt;');
  });
});
