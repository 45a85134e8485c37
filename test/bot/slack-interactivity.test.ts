import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FULL_PLAN_ACTION } from '../../src/bot/views/plan/full-plan-modal.ts';
import { SlackSurface } from '../../src/bot/surface/slack-surface.ts';
import { ESCALATION_ACTIONS, type EscalationButtonAnswer } from '../../src/bot/views/run/escalation.ts';
import { ANSWER_WORDS } from '../../src/agent/execution/escalation-offer.ts';
import { PLAN_APPROVE_ACTION, PLAN_MODIFY_ACTION, PLAN_REJECT_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { stateFromView, type FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import { eventually, silentLogger, startSlackHarness, type SlackHarness } from '../fakes/slack-harness.ts';
import { makeEscalation, makeOffer, makePlan, makeProposal, makeRun } from '../fakes/slack-fixtures.ts';

let h: SlackHarness;
let surface: SlackSurface;
const run = makeRun();

beforeEach(async () => {
  h = await startSlackHarness();
  surface = new SlackSurface({ client: h.slack.client, logger: silentLogger(), escalateTo: 'SOPS' });
  h.runs.runs.push(run);
});
afterEach(() => h.stop());

async function postPlan(version = 1): Promise<FakeMessage> {
  const plan = makePlan(3);
  h.runs.plans.push({
    runId: run.id,
    version,
    plan,
    authorKind: 'planner',
    authorId: 'openai:gpt-4o',
    parentVersion: null,
    reason: null,
    createdAt: new Date(),
  });
  await surface.proposePlan(makeProposal(plan, { version }));
  return h.fake.model.messages.at(-1)!;
}

const ephemeralText = (user: string) =>
  h.fake.model
    .ephemeralsFor(user)
    .map((e) => e.text)
    .join('\n');

describe('plan buttons', () => {
  it('Approve records the decision bound to the plan version and marks the message decided, keeping only View full plan', async () => {
    const message = await postPlan(2);
    const response = await h.driver.clickButtonIn(message, PLAN_APPROVE_ACTION, 'UAPP');
    expect(response.status).toBe(200);
    await eventually(() => expect(h.agent.callsOf('decide')).toEqual([{ runId: 'run_1', planVersion: 2, userId: 'UAPP', decision: 'approve' }]));
    await eventually(() => expect(JSON.stringify(h.fake.model.findMessage('C1', message.ts)!.blocks)).toContain('Approved by <@UAPP>'));
    // The decided plan keeps View full plan, so every argument stays reachable during and after the run.
    const left = h.fake.model
      .findMessage('C1', message.ts)!
      .blocks!.flatMap((b) => ((b as { type: string }).type === 'actions' ? (b as { elements: { action_id: string }[] }).elements : []));
    expect(left.map((button) => button.action_id)).toEqual([FULL_PLAN_ACTION]);
  });

  it('a refused approval is told only to the person who clicked, with the reason, and the buttons stay', async () => {
    h.agent.answers.decide = async () => ({
      ok: false,
      error: { code: 'not-approver', message: 'Only approvers may approve (you are not in TANDEM_APPROVERS).' },
    });
    const message = await postPlan();
    await h.driver.clickButtonIn(message, PLAN_APPROVE_ACTION, 'UNOBODY');
    await eventually(() => expect(ephemeralText('UNOBODY')).toContain('Only approvers may approve'));
    expect(h.fake.model.ephemerals.every((e) => e.user === 'UNOBODY' && e.threadTs === run.conversation.threadTs)).toBe(true);
    expect(h.fake.model.findMessage('C1', message.ts)!.edits).toBe(0);
  });

  it('Reject records a rejection', async () => {
    const message = await postPlan();
    await h.driver.clickButtonIn(message, PLAN_REJECT_ACTION, 'UAPP');
    await eventually(() => expect(h.agent.callsOf('decide')).toMatchObject([{ decision: 'reject', userId: 'UAPP' }]));
  });

  it('a forged button value does nothing and says so', async () => {
    await h.driver.click({ user: 'U1', channel: 'C1', messageTs: '1.000001', actionId: PLAN_APPROVE_ACTION, value: 'not-json' });
    await eventually(() => expect(ephemeralText('U1')).toContain('not from a plan I recognise'));
    expect(h.agent.callsOf('decide')).toEqual([]);
  });

  it('an agent failure is answered privately, not dropped', async () => {
    h.agent.answers.decide = async () => {
      throw new Error('store unavailable');
    };
    const message = await postPlan();
    await h.driver.clickButtonIn(message, PLAN_APPROVE_ACTION, 'UAPP');
    await eventually(() => expect(ephemeralText('UAPP')).toMatch(/approve was not recorded: store unavailable/));
  });
});

describe('Modify', () => {
  async function openModal() {
    const message = await postPlan();
    await h.driver.clickButtonIn(message, PLAN_MODIFY_ACTION, 'UEDIT');
    await h.fake.waitForCall('views.update');
    const [view] = [...h.fake.model.views.values()];
    return view!;
  }

  it('opens a modal at once and fills it with the plan as YAML', async () => {
    const view = await openModal();
    expect(h.fake.callsOf('views.open')).toHaveLength(1);
    expect(JSON.stringify(view.view)).toContain('github_list_workflow_runs');
    expect(view.view.private_metadata).toBe('{"r":"run_1","v":1}');
  });

  it('shows invalid YAML as an error on the YAML field and changes nothing', async () => {
    const view = await openModal();
    const values = stateFromView(view.view, { 'plan-yaml-0': 'steps: [unclosed' });
    const response = await h.driver.submitView({
      user: 'UEDIT',
      view: { id: view.id, callback_id: String(view.view.callback_id), private_metadata: String(view.view.private_metadata) },
      values,
    });
    expect(response.body).toMatchObject({ response_action: 'errors', errors: { 'plan-yaml-0': expect.stringMatching(/Invalid YAML/) } });
    expect(h.agent.callsOf('editPlan')).toEqual([]);
  });

  it("shows the agent's plan problems as a field error", async () => {
    h.agent.answers.checkEdit = async () => ({ ok: false, error: [{ code: 'unknown-tool', message: 's2: tool "nope" is not registered' }] });
    const view = await openModal();
    const response = await h.driver.submitView({
      user: 'UEDIT',
      view: { id: view.id, callback_id: String(view.view.callback_id), private_metadata: String(view.view.private_metadata) },
      values: stateFromView(view.view),
    });
    expect(response.body).toMatchObject({ response_action: 'errors', errors: { 'plan-yaml-0': 's2: tool "nope" is not registered' } });
    expect(h.agent.callsOf('editPlan')).toEqual([]);
  });

  it('sends a valid edit to the agent as a new version by that person', async () => {
    h.agent.answers.editPlan = async (input) => ({
      ok: true,
      value: {
        runId: input.runId,
        version: 2,
        plan: makePlan(3),
        authorKind: 'human',
        authorId: input.userId,
        parentVersion: 1,
        reason: null,
        createdAt: new Date(),
      },
    });
    const view = await openModal();
    const yaml = String(stateFromView(view.view)['plan-yaml-0']!.yaml!.value).replace('limit: 5', 'limit: 10');
    const response = await h.driver.submitView({
      user: 'UEDIT',
      view: { id: view.id, callback_id: String(view.view.callback_id), private_metadata: String(view.view.private_metadata) },
      values: stateFromView(view.view, { 'plan-yaml-0': yaml }),
    });
    expect(response.status).toBe(200);
    await eventually(() => expect(h.agent.callsOf('editPlan')).toHaveLength(1));
    const edit = h.agent.callsOf('editPlan')[0] as { runId: string; planVersion: number; userId: string; plan: { steps: { args: { limit: number } }[] } };
    expect(edit).toMatchObject({ runId: 'run_1', planVersion: 1, userId: 'UEDIT' });
    expect(edit.plan.steps[0]!.args.limit).toBe(10);
  });

  it('sends a free-text instruction to the planner instead', async () => {
    const view = await openModal();
    await h.driver.submitView({
      user: 'UEDIT',
      view: { id: view.id, callback_id: String(view.view.callback_id), private_metadata: String(view.view.private_metadata) },
      values: stateFromView(view.view, { 'plan-instruction': 'skip the merge' }),
    });
    await eventually(() => expect(h.agent.callsOf('revisePlan')).toEqual([{ runId: 'run_1', planVersion: 1, userId: 'UEDIT', instruction: 'skip the merge' }]));
    expect(h.agent.callsOf('editPlan')).toEqual([]);
  });

  it('tells the person privately when the revision is refused after the modal closed', async () => {
    h.agent.answers.revisePlan = async () => ({ ok: false, error: { code: 'plan-changed', message: 'Plan v1 was superseded by v2.' } });
    const view = await openModal();
    await h.driver.submitView({
      user: 'UEDIT',
      view: { id: view.id, callback_id: String(view.view.callback_id), private_metadata: String(view.view.private_metadata) },
      values: stateFromView(view.view, { 'plan-instruction': 'skip the merge' }),
    });
    await eventually(() => expect(ephemeralText('UEDIT')).toContain('superseded by v2'));
  });
});

describe('escalation buttons', () => {
  it.each(Object.keys(ESCALATION_ACTIONS) as EscalationButtonAnswer[])(
    '%s resolves that escalation, and the message collapses to who chose what',
    async (answer) => {
      await surface.escalate(run, makeEscalation(), makeOffer({ answers: [answer, 'abort'] }));
      const message = h.fake.model.messages.at(-1)!;
      expect(message.text).toContain('<!subteam^SOPS>');
      await h.driver.clickButtonIn(message, ESCALATION_ACTIONS[answer], 'UOPS');
      await eventually(() => expect(h.agent.callsOf('resolveEscalation')).toEqual([{ escalationId: 'esc_1', userId: 'UOPS', action: answer }]));
      await eventually(() => expect(h.fake.model.findMessage('C1', message.ts)!.blocks).toHaveLength(1));
      const collapsed = JSON.stringify(h.fake.model.findMessage('C1', message.ts)!.blocks);
      expect(collapsed).toContain(`A step did not pass its check*: Check CI on acme/api#42 — ${ANSWER_WORDS[answer].past} by <@UOPS>`);
      expect(collapsed).not.toContain('"actions"');
    },
  );

  it('an already-resolved escalation is reported to the clicker', async () => {
    h.agent.answers.resolveEscalation = async () => ({
      ok: false,
      error: { code: 'already-resolved', message: 'This was already answered: Retried by <@UOTHER>. Nothing more was done.' },
    });
    await surface.escalate(run, makeEscalation(), makeOffer());
    await h.driver.clickButtonIn(h.fake.model.messages.at(-1)!, ESCALATION_ACTIONS.skip, 'UOPS');
    await eventually(() => expect(ephemeralText('UOPS')).toContain('already answered'));
  });
});

describe('/tandem', () => {
  const lastResponse = () => h.fake.model.responses.at(-1)?.body as { response_type?: string; text?: string } | undefined;

  it('help lists the commands privately', async () => {
    const response = await h.driver.command({ user: 'U1', channel: 'C1', text: 'help' });
    expect(response.status).toBe(200);
    await eventually(() => expect(lastResponse()).toMatchObject({ response_type: 'ephemeral', text: expect.stringContaining('/tandem cancel') }));
  });

  it('status lists runs in progress in the channel privately, each with its id and an Open thread button', async () => {
    h.runs.runs.push(makeRun({ id: 'run_done', status: 'succeeded' }));
    await h.driver.command({ user: 'U1', channel: 'C1', text: 'status' });
    await eventually(() => expect(lastResponse()).toMatchObject({ response_type: 'ephemeral', text: expect.stringContaining('run_1') }));
    expect(lastResponse()!.text).not.toContain('run_done');
    const blocks = JSON.stringify((lastResponse() as { blocks?: unknown }).blocks);
    expect(blocks).toContain('"text":"Open thread"');
    expect(blocks).toContain('"url":"');
    expect(blocks).toContain('<!date^'); // each reader sees their own time
  });

  it("status in another channel does not list this channel's runs (a DM's or a private channel's runs stay there)", async () => {
    h.runs.runs.push(makeRun({ id: 'run_dm', status: 'executing', conversation: { channel: 'D9', threadTs: '1700000000.000900' } }));
    await h.driver.command({ user: 'U1', channel: 'C2', text: 'status' });
    await eventually(() => expect(lastResponse()?.text).toBe('No runs in progress in this channel.'));
    await h.driver.command({ user: 'U1', channel: 'C1', text: 'status' });
    await eventually(() => expect(lastResponse()?.text).toContain('run_1'));
    expect(lastResponse()!.text).not.toContain('run_dm');
  });

  it('cancel of a run of another channel cancels nothing', async () => {
    await h.driver.command({ user: 'U1', channel: 'C2', text: 'cancel run_1' });
    await eventually(() =>
      expect(lastResponse()).toMatchObject({ response_type: 'ephemeral', text: expect.stringContaining('No run `run_1` in this channel') }),
    );
    expect(h.agent.callsOf('cancel')).toEqual([]);
  });

  it("runs lists the person's runs privately", async () => {
    await h.driver.command({ user: 'UREQ', channel: 'C1', text: 'runs' });
    await eventually(() => expect(lastResponse()).toMatchObject({ response_type: 'ephemeral', text: expect.stringContaining('run_1') }));
  });

  it('cancel <runId> asks the agent to cancel and says so', async () => {
    await h.driver.command({ user: 'U1', channel: 'C1', text: 'cancel run_1' });
    await eventually(() => expect(h.agent.callsOf('cancel')).toEqual([{ runId: 'run_1', userId: 'U1' }]));
    await eventually(() => expect(lastResponse()?.text).toContain('cancelled run `run_1`'));
  });

  it('cancel of an unknown run says so and cancels nothing', async () => {
    await h.driver.command({ user: 'U1', channel: 'C1', text: 'cancel run_nope' });
    await eventually(() => expect(lastResponse()?.text).toContain('No run `run_nope`'));
    expect(h.agent.callsOf('cancel')).toEqual([]);
  });
});

describe('App Home', () => {
  it("publishes the person's recent runs", async () => {
    await h.driver.appHomeOpened('UREQ');
    await eventually(() => expect(JSON.stringify(h.fake.model.homeTabs.get('UREQ')?.view)).toContain('run_1'));
  });
});
