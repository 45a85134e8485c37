import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ESCALATION_ACTIONS, type EscalationButtonAnswer } from '../../src/bot/views/run/escalation.ts';
import { PLAN_APPROVE_ACTION, PLAN_MODIFY_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { stateFromView, type FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import { useTestStore } from '../helpers/store.ts';
import { startSlackE2E, type SlackE2E } from '../fakes/slack-e2e.ts';
import { blocksText, hasButtons, isPlanVersion, isSummary, slackReaders } from '../fakes/thread-messages.ts';

const db = useTestStore();
let e: SlackE2E;
beforeEach(async () => {
  e = await startSlackE2E(db.store);
});
afterEach(() => e.stop());

const { ephemerals } = slackReaders(() => e.fake);

async function mention(user: string, task: string) {
  const sent = e.driver.mention({ channel: 'C1', user, text: `<@UBOT> ${task}` });
  expect((await sent).status).toBe(200);
  return sent.ts;
}

async function runOf(ts: string) {
  const [run] = (await db.store.listRuns({ limit: 50 })).filter((r) => r.conversation.threadTs === ts);
  return run!;
}

describe('Slack end to end (real agent and store)', () => {
  it('runs a plan from mention to summary: plan, approval, one board edited in place, summary with links', async () => {
    const ts = await mention('UREQ', 'safe change please');
    const plan = await e.waitForMessage(ts, isPlanVersion(1), 'the plan');
    expect(blocksText(plan)).toContain('*1.* Check the thing'); // a sentence; the tool name is in the full view
    expect(e.thread(ts)).toHaveLength(1); // "planning…" was replaced by the plan

    await e.driver.clickButtonIn(plan, PLAN_APPROVE_ACTION, 'UAPP1');
    const summary = await e.waitForMessage(ts, isSummary, 'the summary');
    await e.agent.idle();
    expect(summary.text).toContain('Succeeded');
    expect(blocksText(summary)).toContain('https://example.test/change/alpha');

    const thread = e.thread(ts);
    const boards = thread.filter((m) => /^(Running|Succeeded|Failed):/.test(m.text));
    expect(boards).toHaveLength(1);
    expect(boards[0]!.text).toMatch(/^Succeeded: Change alpha safely \(2\/2 steps done\)/);
    expect(thread.indexOf(boards[0]!)).toBeLessThan(thread.indexOf(summary));
    expect(blocksText(e.fake.model.findMessage('C1', plan.ts)!)).toContain('Approved by <@UAPP1>');
    expect((await runOf(ts)).boardRef).toBe(boards[0]!.ts);
    expect(e.tools.calls).toEqual(['check_thing:alpha', 'change_thing:alpha']);
  });

  it('starts one run when Slack delivers the same mention twice', async () => {
    const first = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> safe change please' });
    await first;
    const again = await e.driver.event(
      { type: 'app_mention', user: 'UREQ', text: '<@UBOT> safe change please', ts: first.ts, channel: 'C1', event_ts: first.ts },
      { eventId: first.eventId, retryNum: 1 },
    );
    expect(again.status).toBe(200);
    await e.waitForMessage(first.ts, isPlanVersion(1), 'the plan');
    await e.agent.idle();
    expect((await db.store.listRuns({ limit: 100 })).filter((r) => r.conversation.threadTs === first.ts)).toHaveLength(1);
    expect(e.thread(first.ts)).toHaveLength(1);
  });

  it('refuses a non-approver privately and runs nothing', async () => {
    const ts = await mention('UREQ', 'safe change please');
    const plan = await e.waitForMessage(ts, isPlanVersion(1), 'the plan');
    await e.driver.clickButtonIn(plan, PLAN_APPROVE_ACTION, 'UOUTSIDER');
    await e.fake.waitUntil(() => ephemerals('UOUTSIDER').includes('Only <@UAPP1>, <@UAPP2> or <!subteam^SOPS> may approve'), 5000, 'the refusal');
    await e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> cancel', threadTs: ts });
    await e.waitForMessage(ts, isSummary, 'the summary');
    expect(blocksText(e.fake.model.findMessage('C1', plan.ts)!)).toContain('Run cancelled.');
    await e.agent.idle();
    expect(e.tools.calls).toEqual([]);
    expect((await runOf(ts)).status).toBe('cancelled');
  });

  it('needs a second person for destructive steps; a member of an approver group will do', async () => {
    const ts = await mention('UAPP1', 'destroy alpha');
    const plan = await e.waitForMessage(ts, isPlanVersion(1), 'the plan');
    expect(blocksText(plan)).toContain('destructive');
    await e.driver.clickButtonIn(plan, PLAN_APPROVE_ACTION, 'UAPP1');
    await e.fake.waitUntil(() => ephemerals('UAPP1').includes('other than the person who asked'), 5000, 'the four-eyes refusal');
    expect(e.tools.calls).toEqual([]);

    await e.driver.clickButtonIn(plan, PLAN_APPROVE_ACTION, 'UGRP');
    await e.waitForMessage(ts, isSummary, 'the summary');
    await e.agent.idle();
    expect(e.tools.calls).toEqual(['check_thing:alpha', 'drop_thing:alpha']);
  });

  it("Modify: invalid YAML and an invalid plan stay in the modal as field errors; a valid edit becomes v2 and v1's button is refused", async () => {
    const ts = await mention('UREQ', 'safe change please');
    const plan = await e.waitForMessage(ts, isPlanVersion(1), 'the plan');
    await e.driver.clickButtonIn(plan, PLAN_MODIFY_ACTION, 'UAPP1');
    await e.fake.waitForCall('views.update');
    const modal = [...e.fake.model.views.values()].at(-1)!;
    const submit = (edits: Record<string, string>) =>
      e.driver.submitView({
        user: 'UAPP1',
        view: { id: modal.id, callback_id: String(modal.view.callback_id), private_metadata: String(modal.view.private_metadata) },
        values: stateFromView(modal.view, edits),
      });
    const yaml = String(stateFromView(modal.view)['plan-yaml-0']!.yaml!.value);

    const broken = await submit({ 'plan-yaml-0': `${yaml}\n  - [unbalanced` });
    expect(broken.body).toMatchObject({ response_action: 'errors', errors: { 'plan-yaml-0': expect.stringContaining('Invalid YAML') } });
    const unknownTool = await submit({ 'plan-yaml-0': yaml.replace('tool: change_thing', 'tool: launch_rockets') });
    expect(unknownTool.body).toMatchObject({ response_action: 'errors', errors: { 'plan-yaml-0': expect.stringContaining('launch_rockets') } });
    expect(await db.store.listPlanVersions((await runOf(ts)).id)).toHaveLength(1);

    const seenBeforeTheEdit = structuredClone(plan); // another person's screen, not yet refreshed
    const ok = await submit({ 'plan-yaml-0': yaml.replace('target: alpha', 'target: beta') });
    expect(ok.status).toBe(200);
    expect(ok.body).toBe('');
    const v2 = await e.waitForMessage(ts, isPlanVersion(2), 'plan v2');
    expect(blocksText(v2)).toContain('Plan v2, edited by <@UAPP1>');

    await e.fake.waitUntil(() => !hasButtons(e.fake.model.findMessage('C1', plan.ts)!), 5000, 'v1 losing its buttons');
    expect(blocksText(e.fake.model.findMessage('C1', plan.ts)!)).toContain('Replaced by version 2 below');
    await e.driver.clickButtonIn(seenBeforeTheEdit, PLAN_APPROVE_ACTION, 'UAPP2');
    await e.fake.waitUntil(() => ephemerals('UAPP2').includes('The plan changed to v2 while you decided'), 5000, 'the superseded refusal');
    await e.agent.idle();
    expect(e.tools.calls).toEqual([]);

    await e.driver.clickButtonIn(v2, PLAN_APPROVE_ACTION, 'UAPP2');
    await e.waitForMessage(ts, isSummary, 'the summary');
    await e.agent.idle();
    expect(e.tools.calls).toContain('check_thing:beta');
  });

  it("a mention in the run's thread answers the pending question and the run goes on", async () => {
    const ts = await mention('UREQ', 'ask first then change');
    const plan = await e.waitForMessage(ts, isPlanVersion(1), 'the plan');
    await e.driver.clickButtonIn(plan, PLAN_APPROVE_ACTION, 'UAPP1');
    const question = await e.waitForMessage(ts, (m) => m.text.includes('Which cluster should I use?'), 'the question');
    expect(question.text).toContain('<@UREQ>');
    await e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> staging', threadTs: ts });
    const summary = await e.waitForMessage(ts, isSummary, 'the summary');
    await e.agent.idle();
    expect(summary.text).toContain('Succeeded');
    expect(e.tools.calls).toContain('change_thing:staging');
    expect((await db.store.listRuns({ limit: 50 })).filter((r) => r.conversation.threadTs === ts)).toHaveLength(1);
  });

  it('"cancel" in the run\'s thread stops the run and the board ends cancelled', async () => {
    const ts = await mention('UREQ', 'ask first then change');
    const plan = await e.waitForMessage(ts, isPlanVersion(1), 'the plan');
    await e.driver.clickButtonIn(plan, PLAN_APPROVE_ACTION, 'UAPP1');
    await e.waitForMessage(ts, (m) => m.text.includes('Which cluster should I use?'), 'the question');
    await e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> cancel', threadTs: ts });
    const summary = await e.waitForMessage(ts, isSummary, 'the summary');
    await e.agent.idle();
    expect(summary.text).toContain('Cancelled');
    const boards = e.thread(ts).filter((m) => /^(Running|Paused|Cancelled)/.test(m.text));
    expect(boards.map((m) => m.text)).toEqual([expect.stringMatching(/^Cancelled: Change the chosen thing/)]);
    expect(e.tools.calls).not.toContain('change_thing:staging');
  });

  describe('escalation buttons', () => {
    const labels = (m: FakeMessage) =>
      (m.blocks ?? []).flatMap((b) =>
        (b as { type?: string }).type === 'actions' ? (b as { elements: { text: { text: string } }[] }).elements.map((x) => x.text.text) : [],
      );
    async function escalated() {
      e.tools.changeFailures = 1;
      const ts = await mention('UREQ', 'flaky change please');
      const plan = await e.waitForMessage(ts, isPlanVersion(1), 'the plan');
      await e.driver.clickButtonIn(plan, PLAN_APPROVE_ACTION, 'UAPP1');
      const escalation = await e.waitForMessage(ts, (m) => m.text.includes('A step failed') && hasButtons(m), 'the escalation');
      expect(escalation.text).toContain('<!subteam^SOPS>');
      expect(blocksText(escalation)).toContain('“Change the thing” failed: could not change alpha: conflict.');
      return { ts, escalation };
    }
    const click = (m: FakeMessage, answer: EscalationButtonAnswer, user = 'UAPP2') => e.driver.clickButtonIn(m, ESCALATION_ACTIONS[answer], user);
    const collapsedTo = (m: FakeMessage, line: string) =>
      e.fake.waitUntil(() => blocksText(e.fake.model.findMessage('C1', m.ts)!).includes(line), 5000, `the escalation collapsed to "${line}"`);

    it('a failed change with no planner model offers Retry / Skip / Abort, explained once, and says what is undone; no step ids', async () => {
      const { escalation } = await escalated();
      expect(labels(escalation)).toEqual(['Retry', 'Skip', 'Abort', 'Reassign']);
      const text = blocksText(escalation);
      expect(text).toContain('*Retry* runs “Change the thing” again · *Skip* goes on without it · *Abort* stops the run and undoes what succeeded');
      expect(text).toContain('Nothing has changed yet.');
      expect(text).not.toMatch(/`s\d`|\(step s\d|\bs2\b|TANDEM_/);
    });

    it('Retry runs the step again, the run succeeds, and the escalation collapses to who retried it', async () => {
      const { ts, escalation } = await escalated();
      await click(escalation, 'retry');
      const summary = await e.waitForMessage(ts, isSummary, 'the summary');
      expect(summary.text).toContain('Succeeded');
      await collapsedTo(escalation, 'Retried by <@UAPP2>');
      const collapsed = e.fake.model.findMessage('C1', escalation.ts)!;
      expect(collapsed.blocks).toHaveLength(1);
      expect(blocksText(collapsed)).toContain('*A step failed*: Change the thing — Retried by <@UAPP2>');
    });

    it('Skip leaves the step and the run ends', async () => {
      const { ts, escalation } = await escalated();
      await click(escalation, 'skip');
      await e.waitForMessage(ts, isSummary, 'the summary');
      await e.agent.idle();
      const steps = await db.store.listSteps((await runOf(ts)).id);
      expect(steps.find((s) => s.stepId === 's2')?.status).toBe('skipped');
    });

    it('Abort rolls back what succeeded and the summary says so', async () => {
      const { ts, escalation } = await escalated();
      await click(escalation, 'abort');
      const summary = await e.waitForMessage(ts, isSummary, 'the summary');
      await e.agent.idle();
      expect(summary.text).toContain('Aborted');
      expect(blocksText(summary)).toContain('Rolled back');
      expect(e.tools.calls).toContain('undo_thing:check');
      expect(e.tools.calls).not.toContain('undo_thing:alpha');
    });

    it('two failures at once: both escalations are posted before anyone answers; Retry of the first runs it again while the second stays open', async () => {
      e.tools.changeFailures = 2;
      const ts = await mention('UREQ', 'parallel change please');
      const plan = await e.waitForMessage(ts, isPlanVersion(1), 'the plan');
      await e.driver.clickButtonIn(plan, PLAN_APPROVE_ACTION, 'UAPP1');
      const open = () => e.thread(ts).filter((m) => m.text.includes('A step failed') && hasButtons(m));
      await e.fake.waitUntil(() => open().length === 2, 5000, 'two escalations, each with its buttons');
      const beta = open().find((m) => m.text.includes('Change beta'))!;
      const gamma = open().find((m) => m.text.includes('Change gamma'))!;
      expect(labels(beta)).toEqual(['Retry', 'Skip', 'Abort', 'Reassign']);
      expect(labels(gamma)).toEqual(['Retry', 'Skip', 'Abort', 'Reassign']);

      await click(beta, 'retry');
      await collapsedTo(beta, 'Retried by <@UAPP2>');
      await e.fake.waitUntil(() => e.tools.calls.filter((c) => c === 'change_thing:beta').length === 2, 5000, 'beta changed again');
      const board = () => e.thread(ts).find((m) => /^Paused — waiting for a decision: Change beta and gamma \(1\/2 steps done\)/.test(m.text));
      await e.fake.waitUntil(() => board() !== undefined, 5000, 'the board: paused, beta done');
      expect(blocksText(board()!)).toContain('failed — waiting for a person to decide');
      expect(blocksText(board()!)).toContain('Waiting for <!subteam^SOPS> to decide on step 2 (Change gamma)');
      // The second escalation is still open, its buttons in place; no new escalation was posted.
      expect(hasButtons(e.fake.model.findMessage('C1', gamma.ts)!)).toBe(true);
      expect(e.thread(ts).filter((m) => m.text.includes('A step failed'))).toHaveLength(2);
      expect(e.tools.calls.filter((c) => c === 'change_thing:gamma')).toHaveLength(1);

      await click(gamma, 'retry');
      const summary = await e.waitForMessage(ts, isSummary, 'the summary');
      expect(summary.text).toContain('Succeeded');
      expect(e.tools.calls.filter((c) => c.startsWith('change_thing:')).sort()).toEqual([
        'change_thing:beta',
        'change_thing:beta',
        'change_thing:gamma',
        'change_thing:gamma',
      ]);
    });

    it('with a planner model, Replan is offered; it asks the planner and posts a new version for approval', async () => {
      e.planner.answers.push({
        goal: 'Change alpha another way',
        confidence: 0.8,
        steps: [{ id: 's3', title: 'Change it gently', tool: 'change_thing', argsJson: '{"target":"alpha-gently"}', dependsOn: [], expect: null }],
        rollback: [],
        questions: [],
      });
      const { ts, escalation } = await escalated();
      expect(labels(escalation)).toEqual(['Retry', 'Skip', 'Replan', 'Abort', 'Reassign']);
      await click(escalation, 'replan');
      const v2 = await e.waitForMessage(ts, isPlanVersion(2), 'plan v2');
      expect(blocksText(v2)).toContain('Change it gently');
    });

    it('a second click on an answered escalation is refused privately, saying who chose what', async () => {
      const { escalation } = await escalated();
      const seenBeforeTheFirstClick = structuredClone(escalation); // another person's screen, not yet refreshed
      await click(escalation, 'skip');
      await collapsedTo(escalation, 'Skipped by <@UAPP2>');
      await click(seenBeforeTheFirstClick, 'retry', 'UAPP1');
      await e.fake.waitUntil(() => ephemerals('UAPP1').length > 0, 5000, 'the refusal');
      expect(ephemerals('UAPP1')).toContain('This was already answered: Skipped by <@UAPP2>.');
    });

    it('someone who may not answer is told who may, in words: no setting names', async () => {
      const { escalation } = await escalated();
      await click(escalation, 'retry', 'UOUTSIDER');
      await e.fake.waitUntil(() => ephemerals('UOUTSIDER').length > 0, 5000, 'the refusal');
      expect(ephemerals('UOUTSIDER')).toContain('Only <@UAPP1>, <@UAPP2> or <!subteam^SOPS> can choose how this run goes on, and you are not one of them.');
      expect(ephemerals('UOUTSIDER')).toContain('<@UREQ> asked for it');
      expect(ephemerals('UOUTSIDER')).not.toContain('TANDEM_');
      expect(hasButtons(e.fake.model.findMessage('C1', escalation.ts)!)).toBe(true);
    });
  });

  describe('a low-confidence plan', () => {
    async function lowConfidence() {
      e.planner.answers.push({
        goal: 'Change alpha, perhaps',
        confidence: 0.2,
        steps: [{ id: 's1', title: 'Change the thing', tool: 'change_thing', argsJson: '{"target":"alpha"}', dependsOn: [], expect: null }],
        rollback: [],
        questions: [],
      });
      const ts = await mention('UREQ', 'do something vague');
      const escalation = await e.waitForMessage(ts, (m) => m.text.includes('not confident') && hasButtons(m), 'the escalation');
      return { ts, escalation };
    }

    it('pings the escalation group and offers Approve anyway / Modify / Reject in plain words; Approve anyway runs it', async () => {
      const { ts, escalation } = await lowConfidence();
      expect(escalation.text).toContain('<!subteam^SOPS>');
      expect(
        (escalation.blocks ?? []).flatMap((b) =>
          (b as { type?: string }).type === 'actions' ? (b as { elements: { text: { text: string } }[] }).elements.map((x) => x.text.text) : [],
        ),
      ).toEqual(['Approve anyway', 'Modify', 'Reject', 'Reassign']);
      const text = blocksText(escalation);
      expect(text).toContain('The planner is not confident in this plan (1 step), so nothing has run yet.');
      expect(text).not.toMatch(/0\.20|0\.6|threshold|TANDEM_|Retry/);
      await e.driver.clickButtonIn(escalation, ESCALATION_ACTIONS.approve, 'UOUTSIDER');
      await e.fake.waitUntil(() => ephemerals('UOUTSIDER').length > 0, 5000, 'the refusal');
      expect(ephemerals('UOUTSIDER')).toContain('Only <@UAPP1>, <@UAPP2> or <!subteam^SOPS> can approve this plan');
      expect(ephemerals('UOUTSIDER')).not.toContain('TANDEM_');
      await e.driver.clickButtonIn(escalation, ESCALATION_ACTIONS.approve, 'UAPP1');
      await e.waitForMessage(ts, isSummary, 'the summary');
      await e.fake.waitUntil(() => blocksText(e.fake.model.findMessage('C1', escalation.ts)!).includes('Approved anyway by <@UAPP1>'), 5000, 'the collapse');
      expect(e.tools.calls).toEqual(['change_thing:alpha']);
    });

    it('Modify opens the editor on the plan version; Reject by the requester ends the run as rejected', async () => {
      const { ts, escalation } = await lowConfidence();
      await e.driver.clickButtonIn(escalation, PLAN_MODIFY_ACTION, 'UREQ');
      await e.fake.waitUntil(() => [...e.fake.model.views.values()].some((v) => JSON.stringify(v).includes('change_thing')), 5000, 'the editor');
      await e.driver.clickButtonIn(escalation, ESCALATION_ACTIONS.reject, 'UREQ');
      const summary = await e.waitForMessage(ts, isSummary, 'the summary');
      await e.agent.idle();
      expect(summary.text).toMatch(/Rejected/);
      expect((await runOf(ts)).status).toBe('rejected');
      expect(e.tools.calls).toEqual([]);
    });
  });
});
