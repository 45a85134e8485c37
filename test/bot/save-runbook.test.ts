import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { RUNBOOK_NAME_BLOCK, RUNBOOK_PARAMS_BLOCK, RUNBOOK_SAVE_ACTION } from '../../src/bot/views/save-runbook-modal.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { createRunbookCatalog, type RunbookCatalog } from '../../src/runbooks/catalog.ts';
import { createRunbooksStore } from '../../src/store/index.ts';
import { stateFromView, type FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import { startSlackE2E, ToolBench, type SlackE2E } from '../fakes/slack-e2e.ts';
import { useTestStore } from '../helpers/store.ts';
import { blocksText } from '../fakes/thread-messages.ts';

const db = useTestStore();
let dir: string;
let e: SlackE2E;
let catalog: RunbookCatalog;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tandem-save-runbook-'));
  const risks = new Map(new ToolBench().tools().map((tool) => [tool.name, tool.risk]));
  catalog = await createRunbookCatalog({
    store: createRunbooksStore(db.database.db),
    dir,
    logger: createLogger({ level: 'silent', secrets: [] }),
    riskOf: (tool) => risks.get(tool),
  });
  e = await startSlackE2E(db.store, { runbooks: catalog });
});
afterAll(async () => {
  await e.stop();
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => e.agent.idle());

const isPlan = (m: FakeMessage) => m.text.startsWith('Plan v1:');
const isSummary = (m: FakeMessage) => m.text.startsWith(':white_check_mark: Succeeded');

async function mention(task: string): Promise<string> {
  const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: `<@UBOT> ${task}` });
  expect((await sent).status).toBe(200);
  return sent.ts;
}

describe('Save as runbook (real Bolt, agent, store, catalog)', () => {
  it('a succeeded run becomes a runbook through the modal; a later matching task is planned from it with no model call', async () => {
    e.planner.answers.push({
      goal: 'Check and change alpha on staging',
      confidence: 0.9,
      steps: [
        { id: 's1', title: 'Check alpha', tool: 'check_thing', argsJson: '{"target":"alpha"}', dependsOn: [], expect: null },
        { id: 's2', title: 'Change alpha', tool: 'change_thing', argsJson: '{"target":"alpha"}', dependsOn: ['s1'], expect: null },
      ],
      rollback: [],
      questions: [],
    });
    const ts = await mention('tidy alpha on staging');
    await e.driver.clickButtonIn(await e.waitForMessage(ts, isPlan, 'the plan'), PLAN_APPROVE_ACTION, 'UAPP1');
    const summary = await e.waitForMessage(ts, isSummary, 'the summary');
    expect(blocksText(summary)).toContain('Save as runbook');

    await e.driver.clickButtonIn(summary, RUNBOOK_SAVE_ACTION, 'UREQ');
    await e.fake.waitForCall('views.update');
    const modal = [...e.fake.model.views.values()].at(-1)!;
    expect(blocksText(modal.view as { blocks?: unknown[] })).toContain('`alpha` (target)');
    const prefilled = stateFromView(modal.view);
    expect(prefilled[RUNBOOK_PARAMS_BLOCK]!.params!.value).toBe('target=alpha');
    const submit = (edits: Record<string, string>, user = 'UAPP1') =>
      e.driver.submitView({
        user,
        view: { id: modal.id, callback_id: String(modal.view.callback_id), private_metadata: String(modal.view.private_metadata) },
        values: stateFromView(modal.view, edits),
      });

    // Saving lets later tasks be planned without a model, in every channel: only an approver may.
    const byRequester = await submit({ [RUNBOOK_PARAMS_BLOCK]: 'target=alpha\nenv=staging' }, 'UREQ');
    expect(byRequester.body).toMatchObject({ response_action: 'errors', errors: { [RUNBOOK_PARAMS_BLOCK]: expect.stringContaining('Only approvers') } });
    // A pattern of placeholders alone would match almost any task.
    const allPlaceholders = await submit({ [RUNBOOK_PARAMS_BLOCK]: 'verb=tidy\ntarget=alpha\nenv=staging\nlink=on' });
    expect(allPlaceholders.body).toMatchObject({
      response_action: 'errors',
      errors: { [RUNBOOK_PARAMS_BLOCK]: expect.stringContaining('no word of its own') },
    });
    const notInTask = await submit({ [RUNBOOK_PARAMS_BLOCK]: 'target=alpha\nplace=production' });
    expect(notInTask.body).toMatchObject({ response_action: 'errors', errors: { [RUNBOOK_PARAMS_BLOCK]: expect.stringContaining('"production"') } });
    const malformed = await submit({ [RUNBOOK_PARAMS_BLOCK]: 'just alpha' });
    expect(malformed.body).toMatchObject({ response_action: 'errors', errors: { [RUNBOOK_PARAMS_BLOCK]: expect.stringContaining('name=value') } });
    const badName = await submit({ [RUNBOOK_NAME_BLOCK]: 'tidy up!' });
    expect(badName.body).toMatchObject({ response_action: 'errors', errors: { [RUNBOOK_NAME_BLOCK]: expect.stringContaining('cannot be a runbook name') } });
    expect(catalog.list()).toHaveLength(0);

    const saved = await submit({ [RUNBOOK_PARAMS_BLOCK]: 'target=alpha\nenv=staging', [RUNBOOK_NAME_BLOCK]: 'tidy' });
    expect(saved.body).toBe('');
    const told = await e.waitForMessage(ts, (m) => m.text.includes('saved this run as runbook'), 'the saved notice');
    expect(told.text).toContain('"tidy {target} on {env}"');
    expect(told.text).toContain('without a model');
    expect(catalog.list().map((runbook) => [runbook.name, runbook.pattern])).toEqual([['tidy', 'tidy {target} on {env}']]);

    const again = await submit({ [RUNBOOK_NAME_BLOCK]: 'tidy' });
    expect(again.body).toMatchObject({ response_action: 'errors', errors: { [RUNBOOK_NAME_BLOCK]: expect.stringContaining('already exists') } });

    // No planner answer is queued: a model call would fail the run.
    const requestsBefore = e.planner.requests.length;
    const next = await mention('tidy beta on prod');
    const plan = await e.waitForMessage(next, isPlan, 'the runbook plan');
    expect(blocksText(plan)).toContain('runbook *tidy*');
    expect(blocksText(plan)).toContain('beta');
    expect(blocksText(plan)).toContain(PLAN_APPROVE_ACTION); // a write runbook still asks
    await e.driver.clickButtonIn(plan, PLAN_APPROVE_ACTION, 'UAPP1');
    await e.waitForMessage(next, isSummary, 'the second summary');
    expect(e.tools.calls.slice(-2)).toEqual(['check_thing:beta', 'change_thing:beta']);
    expect(e.planner.requests).toHaveLength(requestsBefore);
  });

  it('a run that did not succeed has no Save as runbook button', async () => {
    e.planner.answers.push({
      goal: 'Change omega',
      confidence: 0.9,
      steps: [{ id: 's1', title: 'Change omega', tool: 'change_thing', argsJson: '{"target":"omega"}', dependsOn: [], expect: null }],
      rollback: [],
      questions: [],
    });
    e.tools.changeFailures = 1;
    const ts = await mention('change omega now');
    await e.driver.clickButtonIn(await e.waitForMessage(ts, isPlan, 'the plan'), PLAN_APPROVE_ACTION, 'UAPP1');
    await e.fake.waitUntil(() => e.tools.calls.includes('change_thing:omega'), 10_000, 'the failing step');
    await e.agent.idle();
    await e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> cancel', threadTs: ts });
    const ended = await e.waitForMessage(ts, (m) => /^:(x|octagonal_sign|no_entry_sign):/.test(m.text), 'the summary of the run that did not succeed');
    expect(blocksText(ended)).not.toContain(RUNBOOK_SAVE_ACTION);
    expect(e.thread(ts).some((m) => blocksText(m).includes(RUNBOOK_SAVE_ACTION))).toBe(false);
  });
});
