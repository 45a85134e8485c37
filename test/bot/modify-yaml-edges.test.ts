import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { problemWords } from '../../src/agent/model/plan/plan-problems.ts';
import { validatePlan, MAX_QUESTIONS } from '../../src/agent/model/plan/plan-validation.ts';
import { createToolRegistry } from '../../src/agent/model/tool-registry.ts';
import { SlackSurface } from '../../src/bot/surface/slack-surface.ts';
import { PLAN_MODIFY_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { createBuiltinTools } from '../../src/integrations/tools/builtin-tools.ts';
import type { FakeView } from '../../src/workspace/slack-fake/index.ts';
import { silentLogger, startSlackHarness, type SlackHarness } from '../fakes/slack-harness.ts';
import { makePlan, makeProposal, makeRun } from '../fakes/slack-fixtures.ts';

const registry = createToolRegistry(createBuiltinTools({ github: undefined, slack: undefined, llm: undefined, httpAllow: [] }));
const validate = (plan: unknown) => validatePlan(plan, registry, { maxSteps: 20 });

let h: SlackHarness;
let view: FakeView;
const run = makeRun();

beforeAll(async () => {
  h = await startSlackHarness();
  // The real plan check behind the agent port, so "valid" means what it means in production.
  h.agent.answers.checkEdit = async (input) => {
    const checked = validate(input.plan);
    return checked.ok
      ? { ok: true, value: undefined }
      : { ok: false, error: checked.error.map((problem) => ({ code: problem.code, message: problemWords(problem) })) };
  };
  h.agent.answers.editPlan = async () => ({ ok: false, error: [{ code: 'not-waiting', message: 'not saved in this test' }] });
  h.runs.runs.push(run);
  const plan = makePlan(2);
  h.runs.plans.push({
    runId: run.id,
    version: 1,
    plan,
    authorKind: 'planner',
    authorId: 'openai:gpt-4o',
    parentVersion: null,
    reason: null,
    createdAt: new Date(),
  });
  await new SlackSurface({ client: h.slack.client, logger: silentLogger(), escalateTo: 'SOPS' }).proposePlan(makeProposal(plan, { version: 1 }));
  await h.driver.clickButtonIn(h.fake.model.messages.at(-1)!, PLAN_MODIFY_ACTION, 'UEDIT');
  await h.fake.waitForCall('views.update');
  view = [...h.fake.model.views.values()][0]!;
});
afterAll(() => h.stop());

/** Submits the Modify modal with this YAML, as a stranger with the modal open could. */
async function submit(yaml: string) {
  const values = { 'plan-yaml-0': { yaml: { type: 'plain_text_input', value: yaml } } };
  return h.driver.submitView({
    user: 'UEDIT',
    view: { id: view.id, callback_id: String(view.view.callback_id), private_metadata: String(view.view.private_metadata) },
    values,
  });
}

function aliasBomb(width: number, depth: number): string {
  const row = (name: string) => `[${Array.from({ length: width }, () => `*${name}`).join(', ')}]`;
  const lines = [`l0: &l0 [${Array.from({ length: width }, () => 'lol').join(', ')}]`];
  for (let level = 1; level <= depth; level += 1) lines.push(`l${level}: &l${level} ${row(`l${level - 1}`)}`);
  return `goal: boom\nconfidence: 0.5\n${lines.join('\n')}\nsteps: *l${depth}\n`;
}

describe('the Modify modal against hostile YAML', () => {
  it('a YAML alias bomb is a field error, and the modal is answered', async () => {
    const response = await submit(aliasBomb(10, 9));
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ response_action: 'errors', errors: { 'plan-yaml-0': expect.stringContaining('cannot be used') } });
    expect(h.agent.callsOf('editPlan')).toEqual([]);
  });

  it('too many rollback steps or questions is a field error that names the limit', async () => {
    const plan = makePlan(1);
    const rollback = Array.from({ length: 21 }, (_, i) => ({
      id: `r${i}`,
      title: 'undo',
      tool: 'github_create_issue',
      args: { repo: 'acme/api', title: 'revert' },
    }));
    const many = await submit(stringify({ ...plan, rollback }));
    expect(many.body).toMatchObject({
      response_action: 'errors',
      errors: { 'plan-yaml-0': expect.stringContaining('21 rollback steps is more than the limit of 20') },
    });
    const questions = Array.from({ length: MAX_QUESTIONS + 1 }, (_, i) => `question ${i}?`);
    const asked = await submit(stringify({ ...plan, steps: [], rollback: [], questions }));
    expect(asked.body).toMatchObject({ response_action: 'errors', errors: { 'plan-yaml-0': expect.stringContaining(`limit of ${MAX_QUESTIONS}`) } });
  });

  it('whatever YAML is submitted, the answer is a field error or a valid plan, never a failure', async () => {
    const fragments = fc.constantFrom(
      '&a [x, x]',
      '*a',
      '*nope',
      '<<: *a',
      '!!js/function f',
      '!!binary ~',
      '!!set {a}',
      '? [a]\n: b',
      '{',
      ']',
      '- - -',
      '"\\u0000"',
      '.nan',
      '1e999',
      '%YAML 1.1',
      '---',
      '...',
      ': :',
      '|-\n  x',
      'x: !!int "nope"',
    );
    const valid = stringify(makePlan(2));
    const hostile = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.anything({ maxDepth: 4 }).map((value) => stringify(value)),
      fc.tuple(fc.array(fragments, { minLength: 1, maxLength: 12 }), fc.constantFrom(' ', '\n', ': ', '\n  ')).map(([parts, glue]) => parts.join(glue)),
      fc.tuple(fc.integer({ min: 2, max: 12 }), fc.integer({ min: 1, max: 10 })).map(([width, depth]) => aliasBomb(width, depth)),
      fc.integer({ min: 1, max: 5_000 }).map((depth) => `goal: ${'['.repeat(depth)}x${']'.repeat(depth)}`),
      fc.tuple(fc.nat({ max: valid.length }), fc.string({ maxLength: 20 })).map(([at, insert]) => valid.slice(0, at) + insert + valid.slice(at)),
    );
    await fc.assert(
      fc.asyncProperty(hostile, async (yaml) => {
        const before = h.agent.callsOf('editPlan').length;
        const response = await submit(yaml);
        expect(response.status).toBe(200);
        const errors = (response.body as { errors?: Record<string, string> } | undefined)?.errors;
        if (errors) {
          expect(Object.keys(errors).length).toBeGreaterThan(0);
          for (const message of Object.values(errors)) expect(message).toMatch(/\S/);
          return;
        }
        // No field error: the edit went on to the agent, and it was a valid plan.
        await expect.poll(() => h.agent.callsOf('editPlan').length).toBeGreaterThan(before);
        const sent = (h.agent.callsOf('editPlan').at(-1) as { plan: unknown }).plan;
        expect(validate(sent).ok).toBe(true);
      }),
      { numRuns: 150 },
    );
  }, 120_000);
});
