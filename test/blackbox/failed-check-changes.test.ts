/**
 * A write whose call went through but whose check failed still changed something (contract §5): the escalation
 * says so ("Already changed"), an Abort runs its undo, and the summary lists it under what changed.
 */
import { describe, expect, it } from 'vitest';
import { botMessages, clickByText, isSummary, messageWithButtons, visibleText, waitFor } from './harness.ts';
import { plan, step } from './plans.ts';
import { useStack } from './stack.ts';
import { openAiReply } from '../fakes/openai-server.ts';

const stack = useStack();

describe('a change whose check failed', () => {
  it('a dispatched deploy that concluded failure: the escalation says it changed, Abort runs its undo and the summary says so', async () => {
    const { slack } = stack;
    const channel = 'C81';
    stack.github.addWorkflow('acme/api', { path: '.github/workflows/deploy.yml', conclusion: 'failure' });
    stack.github.addWorkflow('acme/api', { path: '.github/workflows/rollback.yml', conclusion: 'success' });
    const { thread, planMessage } = await stack.planned(
      channel,
      'U1',
      'deploy',
      plan('Deploy api', [step('s1', 'Deploy main', 'github_dispatch_workflow', { repo: 'acme/api', workflow: 'deploy.yml', ref: 'main' })], {
        rollback: [
          {
            id: 'r1',
            title: 'Deploy the previous release',
            tool: 'github_dispatch_workflow',
            args: { repo: 'acme/api', workflow: 'rollback.yml', ref: 'v1.0' },
          },
        ],
      }),
    );
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    const escalation = await waitFor(slack, () => messageWithButtons(slack, channel, thread, 'Abort'), 'the escalation', 40_000);
    expect(visibleText(escalation)).toContain('Already changed: Deploy main');
    expect(visibleText(escalation)).not.toContain('Nothing has changed yet');

    await clickByText(stack.tandem.driver, escalation, 'Abort', 'U2');
    const summary = visibleText(await waitFor(slack, () => botMessages(slack, channel, thread).find(isSummary), 'the summary', 30_000));
    const dispatched = stack.github.requests.filter((r) => r.method === 'POST' && r.path.includes('/dispatches')).map((r) => r.path);
    expect(dispatched).toEqual(['/repos/acme/api/actions/workflows/deploy.yml/dispatches', '/repos/acme/api/actions/workflows/rollback.yml/dispatches']);
    expect(summary).not.toContain('Nothing was rolled back');
    expect(summary).toMatch(/Rolled back:?\*?\s*\n?.*Deploy the previous release/);
    expect(summary).not.toContain('What changed:* nothing');
    expect(summary).toMatch(/What changed:\*\n.*deploy\.yml/);
  });

  it('a comment the evaluator judged wrong, then Skip: the summary lists the comment as changed', async () => {
    const { slack } = stack;
    const channel = 'C82';
    const issue = stack.github.addIssue('acme/api', { title: 'target' });
    const s1 = {
      ...step('s1', 'Comment the release note', 'github_comment', { repo: 'acme/api', number: issue.number, body: 'released v1' }),
      expect: 'the comment mentions v2',
    };
    const { thread, planMessage } = await stack.planned(channel, 'U1', 'comment', plan('Comment the note', [s1]));
    stack.openai.enqueue(openAiReply.json({ verdict: 'fail', reason: 'the comment does not mention v2' }));
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    const escalation = await waitFor(slack, () => messageWithButtons(slack, channel, thread, 'Skip'), 'the escalation', 30_000);
    expect(visibleText(escalation)).toContain('Already changed: Comment the release note');

    await clickByText(stack.tandem.driver, escalation, 'Skip', 'U2');
    const summary = visibleText(await waitFor(slack, () => botMessages(slack, channel, thread).find(isSummary), 'the summary', 30_000));
    expect(summary).not.toContain('What changed:* nothing');
    expect(summary).toMatch(new RegExp(`What changed:\\*\\n.*Commented on .*acme/api#${issue.number}`));
    // One story: the comment was made and its check skipped, not also "not done".
    expect(summary).not.toMatch(/Not done:\*\n.*Comment the release note/);
    expect(summary).toMatch(/Check skipped:\*\n.*Comment the release note — its check failed and a person skipped it/);
    expect(summary).toMatch(/^:warning: \*Finished with 1 check skipped:\*/m);
    const board = stack.boardText(channel, thread, planMessage.ts);
    expect(board).toMatch(/^Finished with 1 check skipped/);
    expect(board).toMatch(/Comment the release note[^\n]*done[^\n]*its check failed and a person skipped it/);
  });
});
