import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { decodeEscalationButton, decodeEscalationRef, decodePlanRef } from '../../src/bot/views/button-values.ts';
import { appHomeView } from '../../src/bot/views/app-home.ts';
import { escapeKeepingMentions } from '../../src/bot/views/text.ts';
import { ESCALATION_ACTIONS, escalationMessage } from '../../src/bot/views/run/escalation.ts';
import { HomeViewSchema, MessageBlocksSchema, ModalViewSchema, type MessageBlock } from '../../src/bot/views/limits.ts';
import { modifyModal } from '../../src/bot/views/plan/modify-modal.ts';
import { PLAN_APPROVE_ACTION, PLAN_MODIFY_ACTION, PLAN_REJECT_ACTION, planMessages } from '../../src/bot/views/plan/plan-message.ts';
import type { ProposedPlan } from '../../src/agent/ports/surface.ts';
import type { Plan } from '../../src/agent/model/plan/plan.ts';
import { diffPlans } from '../../src/agent/model/plan/plan-diff.ts';
import { targetArgNames } from '../../src/agent/model/step-targets.ts';
import { createBuiltinTools } from '../../src/integrations/tools/index.ts';
import { statusBoard } from '../../src/bot/views/run/status-board.ts';
import { summaryMessage } from '../../src/bot/views/run/summary.ts';
import { parsePlanYaml, readModifySubmission } from '../../src/bot/modify-submission.ts';
import { makeBoard, makeEscalation, makeOffer, makePlan, makeProposal, makeRun } from '../fakes/slack-fixtures.ts';
import { decodeReassignButton, REASSIGN_ACTION } from '../../src/bot/views/run/reassign.ts';

const allText = (blocks: MessageBlock[]) => JSON.stringify(blocks);
const buttons = (blocks: MessageBlock[]) => blocks.flatMap((b) => (b.type === 'actions' ? b.elements : []));

function expectWithinLimits(blocks: MessageBlock[]) {
  const result = MessageBlocksSchema.safeParse(blocks);
  expect(result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([]);
}

/** A plan that fits one message: that message. */
function planMessage(proposal: ProposedPlan) {
  const views = planMessages(proposal);
  expect(views).toHaveLength(1);
  return views[0]!;
}

describe('plan message', () => {
  it('shows the goal once, steps as sentences with their target in bold, risk marks, dependencies in words, rollback, and bound buttons', () => {
    const view = planMessage(makeProposal(makePlan(3)));
    const text = allText(view.blocks);
    expect(text).toContain('*1.* Check CI run 1');
    expect(text).toContain(':warning: *destructive*');
    expect(text).toContain('after “Check CI run 2”');
    expect(text).toContain('*If the plan is aborted*, these undo what it did:\\n• Revert the merge — *acme/api*');
    expect(text.split('Merge PR 42 on acme/api')).toHaveLength(2); // the goal once, as the header
    expect(text).toContain('`github_merge_pull`'); // each step names its tool (CONTRACT §5); its arguments are in the full view
    expect(text).not.toMatch(/\bs[0-9]\b/); // no step ids
    expect(text).toContain('confidence 82%'); // shown always (CONTRACT §5); only below the threshold does it warn
    expect(view.text).toBe('Plan v1: Merge PR 42 on acme/api &lt;safely&gt; &amp; quickly');
    const [approve, modify, reject] = buttons(view.blocks);
    expect([approve?.action_id, modify?.action_id, reject?.action_id]).toEqual([PLAN_APPROVE_ACTION, PLAN_MODIFY_ACTION, PLAN_REJECT_ACTION]);
    expect(decodePlanRef(approve?.value)).toEqual({ runId: 'run_1', planVersion: 1 });
    expectWithinLimits(view.blocks);
  });

  it('shows the confidence, and warns only when it is below the threshold', () => {
    const plan = { ...makePlan(2), confidence: 0.4 };
    const view = planMessage(makeProposal(plan));
    expect(allText(view.blocks)).toContain('The planner is not sure this plan does what was asked (confidence 40%)');
    const above = allText(planMessages(makeProposal(plan), { confidenceThreshold: 0.3 })[0]!.blocks);
    expect(above).toContain('confidence 40%');
    expect(above).not.toContain('not sure');
    expectWithinLimits(view.blocks);
  });

  it('bolds the target inside the title when the title names it: "Comment on *acme/api#7*, linking the new issue"', () => {
    const plan = makePlan(1);
    plan.steps[0] = {
      id: 's1',
      title: 'Comment on acme/api#7, linking the new issue',
      tool: 'github_comment',
      args: { repo: 'acme/api', number: 7, body: 'See #8' },
      dependsOn: [],
    };
    const text = allText(planMessage(makeProposal(plan, { risks: { s1: 'write', r1: 'write' }, targets: { s1: ['repo', 'number'], r1: ['repo'] } })).blocks);
    expect(text).toContain('*1.* Comment on *acme/api#7*, linking the new issue  ·  :pencil2:');
    expect(text).not.toContain('See #8'); // other arguments are in the full view
  });

  it('bolds the target in the title only where the title names it whole: "Merge acme/api#77" is not acme/api#7', () => {
    const plan = makePlan(1);
    plan.steps = [
      { id: 's1', title: 'Merge acme/api#77', tool: 'github_merge_pull', args: { repo: 'acme/api', number: 7 }, dependsOn: [] },
      { id: 's2', title: 'Release v1.2.10', tool: 'github_create_release', args: { repo: 'acme/api', tag: 'v1.2' }, dependsOn: [] },
      { id: 's3', title: 'Then merge acme/api#7.', tool: 'github_merge_pull', args: { repo: 'acme/api', number: 7 }, dependsOn: [] },
    ];
    const targets = { s1: ['repo', 'number'], s2: ['repo', 'tag'], s3: ['repo', 'number'] };
    const text = allText(planMessage(makeProposal(plan, { risks: { s1: 'destructive', s2: 'write', s3: 'destructive', r1: 'write' }, targets })).blocks);
    expect(text).toContain('*1.* Merge acme/api#77 — *acme/api#7*');
    expect(text).not.toContain('*acme/api#7*7');
    expect(text).toContain('*2.* Release v1.2.10 — *acme/api* tag *v1.2*');
    expect(text).toContain('*3.* Then merge *acme/api#7*.');
  });

  it('names who can approve when it is not everyone, and that the requester cannot approve a destructive step', () => {
    const named = allText(planMessages(makeProposal(makePlan(2)), { approvers: ['UAPP1', 'SOPS'] })[0]!.blocks);
    expect(named).toContain('Who can approve: <@UAPP1>, <!subteam^SOPS>, other than <@UREQ> who asked.');
    expect(allText(planMessage(makeProposal(makePlan(2))).blocks)).not.toContain('Who can approve');
    expect(allText(planMessages(makeProposal(makePlan(2), { autoApproved: true }), { approvers: ['UAPP1'] })[0]!.blocks)).not.toContain('Who can approve');
  });

  it('does not repeat the runbook, nor who edited, nor name the model', () => {
    const runbook = allText(planMessage(makeProposal(makePlan(2), { authorKind: 'runbook', authorId: 'check-health', reason: 'runbook check-health' })).blocks);
    expect(runbook).toContain('Plan from runbook *check-health*');
    expect(runbook.split('check-health')).toHaveLength(2);
    const edited = allText(planMessage(makeProposal(makePlan(2), { version: 2, authorKind: 'human', authorId: 'UEDIT', reason: [{ user: 'UEDIT' }] })).blocks);
    expect(edited).toContain('Plan v2, edited by <@UEDIT>');
    expect(edited.split('<@UEDIT>')).toHaveLength(2);
    const replanned = allText(planMessage(makeProposal(makePlan(2), { version: 3, reason: 'replan: the check failed' })).blocks);
    expect(replanned).toContain('Plan v3 — replan: the check failed');
    expect(replanned).not.toContain('openai:gpt-4o');
  });

  it('escapes &, < and > from the plan text in mrkdwn (plain_text headers show it verbatim)', () => {
    const view = planMessage(makeProposal(makePlan(2)));
    const text = allText(view.blocks.filter((b) => b.type !== 'header'));
    expect(view.text).toContain('&lt;safely&gt; &amp; quickly');
    expect(allText(view.blocks.filter((b) => b.type === 'header'))).toContain('<safely> & quickly');
    expect(text).toContain('feature/&lt;1&gt;&amp;x');
    expect(text).not.toContain('<safely>');
  });

  it('names the author and the changes of a new version', () => {
    const view = planMessage(
      makeProposal(makePlan(2), {
        version: 2,
        authorKind: 'human',
        authorId: 'UEDIT',
        diff: [{ text: 'step 2 limit: 5 → 10', target: false }],
        reason: 'edited in Slack',
      }),
    );
    const text = allText(view.blocks);
    expect(text).toContain('Plan v2, edited by <@UEDIT>');
    expect(text).toContain('step 2 limit: 5 → 10');
    expect(decodePlanRef(buttons(view.blocks)[0]?.value)).toEqual({ runId: 'run_1', planVersion: 2 });
  });

  it.each([40, 200])('condenses a %i-step plan with long titles within Slack limits and keeps the buttons', (count) => {
    const view = planMessage(makeProposal(makePlan(count, { longTitles: true })));
    expectWithinLimits(view.blocks);
    expect(buttons(view.blocks)).toHaveLength(5);
    expect(allText(view.blocks)).toMatch(/more read steps/);
  });

  it('has no buttons when the plan runs without approval', () => {
    const view = planMessage(makeProposal(makePlan(2), { autoApproved: true }));
    expect(buttons(view.blocks)).toHaveLength(0);
  });
});

const builtins = new Map(createBuiltinTools({ github: undefined, slack: undefined, llm: undefined, httpAllow: [] }).map((tool) => [tool.name, tool]));

/** A proposal as the agent builds it: each step's risk and target args from the real tools. */
function proposalOf(plan: Plan, overrides: Partial<ProposedPlan> = {}): ProposedPlan {
  const steps = [...plan.steps, ...plan.rollback];
  const risks = Object.fromEntries(steps.map((step) => [step.id, builtins.get(step.tool)!.risk]));
  const targets = Object.fromEntries(steps.map((step) => [step.id, targetArgNames(builtins.get(step.tool), step.args)]));
  return makeProposal(plan, { risks, targets, ...overrides });
}

describe('plan message: targets in full', () => {
  const longRepo = `victim-org/${'r'.repeat(89)}`; // 100 characters
  const longRef = `release/${'f'.repeat(92)}`;
  const longTag = `v9.9.9-${'t'.repeat(93)}`;
  const hiddenTargets = (): Plan => ({
    schemaVersion: 1,
    goal: 'Ship it',
    confidence: 0.9,
    steps: [
      { id: 's1', title: 'Read the repo', tool: 'github_get_repo', args: { repo: 'acme/api' }, dependsOn: [] },
      {
        id: 's2',
        title: 'Release',
        tool: 'github_create_release',
        args: { body: 'notes '.repeat(50), name: 'n', repo: longRepo, tag: longTag, target: longRef },
        dependsOn: ['s1'],
      },
      {
        id: 's3',
        title: 'Deploy',
        tool: 'github_dispatch_workflow',
        args: { inputs: { a: '1' }, ref: longRef, repo: longRepo, workflow: 'deploy-production-everywhere.yml' },
        dependsOn: ['s2'],
      },
      {
        id: 's4',
        title: 'Tell people',
        tool: 'slack_notify',
        args: { text: 'done '.repeat(100), channel: '#releases-and-very-long-channel-names' },
        dependsOn: ['s3'],
      },
    ],
    rollback: [{ id: 'r1', title: 'Undo the release', tool: 'github_merge_pull', args: { method: 'squash', repo: 'victim-org/prod', number: 99 } }],
  });
  const everyTarget = [longRepo, longRef, longTag, 'deploy-production-everywhere.yml', '#releases-and-very-long-channel-names', 'victim-org/prod#99'];

  it('shows every target of every write, forward and rollback, in full and first; a destructive rollback step warns', () => {
    const views = planMessages(proposalOf(hiddenTargets()));
    for (const view of views) expectWithinLimits(view.blocks);
    const text = views.map((view) => allText(view.blocks)).join('\n');
    for (const target of everyTarget) expect(text, target).toContain(target);
    expect(text).toContain(`Release — *${longRepo}* tag *${longTag}* target *${longRef}*  ·  :pencil2:`);
    expect(text).toContain('Undo the release — *victim-org/prod#99*  ·  :warning: *destructive*');
    expect(text).toContain('Destructive steps (rollback steps included) need an approver other than the requester');
  });

  it('splits a plan too long for one message over several, never cutting a target, buttons after the last of it', () => {
    const plan = hiddenTargets();
    for (let i = 0; i < 60; i++) {
      plan.steps.push({
        id: `w${i}`,
        title: `Label ${i} ${'long title '.repeat(10)}`,
        tool: 'github_add_labels',
        args: { repo: `${longRepo}${i}`, number: 1000 + i, labels: ['x'] },
        dependsOn: [],
      });
    }
    const views = planMessages(proposalOf(plan));
    expect(views.length).toBeGreaterThan(1);
    for (const view of views) expectWithinLimits(view.blocks);
    const text = views.map((view) => allText(view.blocks)).join('\n');
    for (let i = 0; i < 60; i++) expect(text).toContain(`*${longRepo}${i}#${1000 + i}*`);
    for (const target of everyTarget) expect(text, target).toContain(target);
    expect(views.slice(0, -1).flatMap((view) => buttons(view.blocks))).toEqual([]);
    expect(buttons(views.at(-1)!.blocks)).toHaveLength(5);
    expect(allText(views[1]!.blocks)).toContain(`Plan v1, continued (2/${views.length})`);
  });

  it('keeps a target longer than a whole section whole, continued in the next section', () => {
    const plan = hiddenTargets();
    const huge = `${'a'.repeat(2000)}&${'b'.repeat(2000)}`;
    plan.steps.push({ id: 'm1', title: 'MCP write', tool: 'mcp_ops_restart', args: { host: huge }, dependsOn: [] });
    // An MCP tool declares no targets: every arg counts as one (absent from the targets map).
    const base = proposalOf({ ...plan, steps: plan.steps.slice(0, 4) });
    const views = planMessages({ ...base, plan, risks: { ...base.risks, m1: 'write' } });
    for (const view of views) expectWithinLimits(view.blocks);
    const sections = views.flatMap((view) => view.blocks).flatMap((block) => (block.type === 'section' && block.text ? [block.text.text] : []));
    expect(sections.join('').replace(/\n/g, '')).toContain(`host *${huge.replace('&', '&amp;')}*`);
  });

  it('lists every target change of a new version even when other changes must give way', () => {
    const before = hiddenTargets();
    const after = hiddenTargets();
    for (let i = 0; i < 80; i++) {
      before.steps.push({
        id: `c${i}`,
        title: `Comment ${i}`,
        tool: 'github_comment',
        args: { repo: 'acme/api', number: i + 1, body: `old ${'text '.repeat(20)}` },
        dependsOn: [],
      });
      after.steps.push({
        id: `c${i}`,
        title: `Comment ${i}`,
        tool: 'github_comment',
        args: { repo: 'acme/api', number: i + 1, body: `new ${'text '.repeat(20)}` },
        dependsOn: [],
      });
    }
    after.steps[2]!.args.ref = 'main';
    after.rollback[0]!.args.repo = 'victim-org/other';
    const targetsOf = (step: { tool: string; args: Record<string, unknown> }) =>
      builtins.get(step.tool)!.risk === 'read' ? [] : targetArgNames(builtins.get(step.tool), step.args);
    const diff = diffPlans(before, after, targetsOf);
    expect(diff.filter((line) => line.target).map((line) => line.text)).toEqual([
      `step 3 ref: ${JSON.stringify(longRef)} → "main"`,
      'rollback step 1 repo: "victim-org/prod" → "victim-org/other"',
    ]);
    const views = planMessages(proposalOf(after, { version: 2, diff }));
    for (const view of views) expectWithinLimits(view.blocks);
    const text = views.map((view) => allText(view.blocks)).join('\n');
    expect(text).toContain(`step 3 ref: ${JSON.stringify(longRef).replace(/"/g, '\\"')} → \\"main\\"`);
    expect(text).toContain('rollback step 1 repo: \\"victim-org/prod\\" → \\"victim-org/other\\"');
    expect(text).toMatch(/more changes/);
  });
});

describe('status board', () => {
  it('has one line per step with status, elapsed time and link, under a header with the run state', () => {
    const view = statusBoard(makeBoard(makePlan(3)));
    const text = allText(view.blocks);
    expect(view.blocks[0]).toMatchObject({ type: 'header' });
    expect(text).toContain('Running: Merge PR 42');
    expect(text).toContain(':white_check_mark: 1. Check CI run 1 · done · 2s · <https://github.com/acme/api/actions/runs/1|acme/api workflow run>');
    expect(text).toContain(':arrows_counterclockwise: 2. Check CI run 2');
    expect(text).toContain(':white_circle: 3. Check CI run 3 · not started');
    expectWithinLimits(view.blocks);
  });

  it.each([40, 200])('stays within limits for %i steps', (count) => {
    expectWithinLimits(statusBoard(makeBoard(makePlan(count, { longTitles: true }))).blocks);
  });
});

describe('escalation', () => {
  it('mentions the user group, says what happened, what changed and what waits, and binds its buttons to the escalation', () => {
    const view = escalationMessage({ escalation: makeEscalation(), offer: makeOffer(), escalateTo: 'SOPS' });
    const text = allText(view.blocks);
    expect(text).toContain('<!subteam^SOPS>');
    expect(text).toContain('concluded &lt;failure&gt; &amp; the PR');
    expect(text).toContain('Nothing has changed yet. On hold until someone answers: Merge acme/api#42.');
    const ids = buttons(view.blocks).map((b) => b.action_id);
    expect(ids).toEqual([ESCALATION_ACTIONS.retry, ESCALATION_ACTIONS.skip, ESCALATION_ACTIONS.replan, ESCALATION_ACTIONS.abort, REASSIGN_ACTION]);
    const answers = buttons(view.blocks).filter((b) => b.action_id !== REASSIGN_ACTION);
    expect(answers.every((b) => decodeEscalationRef(b.value) === 'esc_1')).toBe(true);
    expect(decodeReassignButton(buttons(view.blocks).at(-1)!.value)).toEqual({ kind: 'escalation', escalationId: 'esc_1' });
    expectWithinLimits(view.blocks);
  });

  it('binds "Approve anyway" to the plan digest it was drawn for, as the plan\'s Approve is bound; the other answers name only the escalation', () => {
    const view = escalationMessage({
      escalation: makeEscalation({ kind: 'low-confidence', stepId: null }),
      offer: makeOffer({ answers: ['approve', 'modify', 'reject'], plan: { version: 1, digest: '0123456789ab' } }),
      escalateTo: undefined,
    });
    const valueOf = (actionId: string) => buttons(view.blocks).find((b) => b.action_id === actionId)!.value;
    expect(decodeEscalationButton(valueOf(ESCALATION_ACTIONS.approve))).toEqual({ escalationId: 'esc_1', digest: '0123456789ab' });
    expect(decodeEscalationButton(valueOf(ESCALATION_ACTIONS.reject))).toEqual({ escalationId: 'esc_1' });
  });

  it('mentions a user with <@U…>', () => {
    expect(allText(escalationMessage({ escalation: makeEscalation(), offer: makeOffer(), escalateTo: 'UONCALL' }).blocks)).toContain('<@UONCALL>');
  });
});

describe('summary', () => {
  const aborted = {
    run: makeRun(),
    outcome: 'aborted',
    goal: 'Release v1.2',
    reason: 'Aborted by <@U1>',
    changes: [{ title: 'Issue #7', url: 'https://github.com/acme/api/issues/7' }],
    rolledBack: [{ title: 'Close issue #7', status: 'succeeded' }],
    durationMs: 125_000,
    tokens: { input: 1200, output: 300 },
    costUsd: 0.0123,
  } satisfies Parameters<typeof summaryMessage>[0];

  it('shows outcome, changes with links, rollback and duration; no tokens, cost or run id', () => {
    const view = summaryMessage(aborted);
    const text = allText(view.blocks);
    expect(text).toContain('Aborted');
    expect(text).toContain('<https://github.com/acme/api/issues/7|Issue #7>');
    expect(text).toContain('Rolled back');
    expect(text).toContain('2m 5s');
    expect(text).not.toContain('tokens');
    expect(text).not.toContain('$0.0123');
    expect(JSON.stringify(view.blocks, (key, value: unknown) => (key === 'value' ? undefined : value))).not.toContain('run_1'); // buttons carry it, nobody reads it
    expectWithinLimits(view.blocks);
  });

  it('shows tokens and cost when the team asked for them (TANDEM_SHOW_COST)', () => {
    const text = allText(summaryMessage(aborted, { showCost: true }).blocks);
    expect(text).toContain('1,500 tokens');
    expect(text).toContain('$0.0123');
  });
});

describe('modify modal', () => {
  it('holds the plan as YAML that parses back to the same steps, with the plan ref in private_metadata', () => {
    const plan = makePlan(3);
    const view = modifyModal({ runId: 'run_1', planVersion: 2, plan });
    expect(ModalViewSchema.safeParse(view).success).toBe(true);
    expect(decodePlanRef(view.private_metadata)).toEqual({ runId: 'run_1', planVersion: 2 });
    const values = Object.fromEntries(
      view.blocks
        .filter((b) => b.type === 'input')
        .map((b) => [b.block_id!, { [b.element.action_id]: { value: ('initial_value' in b.element ? b.element.initial_value : undefined) ?? null } }]),
    );
    const submission = readModifySubmission({ private_metadata: view.private_metadata, state: { values } })!;
    const parsed = parsePlanYaml(submission.parts);
    expect(parsed.ok && (parsed.value as { steps: unknown[] }).steps).toEqual(plan.steps);
  });

  it('splits a 200-step plan over several inputs that join back to the whole plan', () => {
    const plan = makePlan(200, { longTitles: true });
    const view = modifyModal({ runId: 'run_1', planVersion: 1, plan });
    const result = ModalViewSchema.safeParse(view);
    expect(result.success).toBe(true);
    const inputs = view.blocks.filter((b) => b.type === 'input' && b.block_id!.startsWith('plan-yaml-'));
    expect(inputs.length).toBeGreaterThan(1);
    const text = inputs.map((b) => (b.type === 'input' && 'initial_value' in b.element ? b.element.initial_value : '')).join('\n');
    expect((parse(text) as { steps: unknown[] }).steps).toHaveLength(200);
  });
});

describe('escaping agent sentences', () => {
  it('keeps mentions of people, groups and channels but no other markup', () => {
    expect(escapeKeepingMentions('<@U123> & <!subteam^SOPS> in <#C9>: <!channel> <http://x|y>')).toBe(
      '<@U123> &amp; <!subteam^SOPS> in <#C9>: &lt;!channel&gt; &lt;http://x|y&gt;',
    );
  });
});

describe('app home', () => {
  it("lists the person's runs within limits", () => {
    const view = appHomeView({ userId: 'U1', runs: Array.from({ length: 30 }, (_, i) => makeRun({ id: `run_${i}`, task: `task <${i}>` })) });
    expect(HomeViewSchema.safeParse(view).success).toBe(true);
    expect(JSON.stringify(view)).toContain('task &lt;3&gt;');
  });
});
