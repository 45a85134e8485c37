/**
 * Modify offers the plan as editable YAML even when one step is longer than one input holds (review
 * finding 8): the step is cut between lines over several inputs, and the submit's join gives back the
 * exact YAML, a block scalar cut in two included. Only a single line longer than an input falls back to
 * "too large to edit here".
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Plan } from '../../src/agent/model/plan/plan.ts';
import { parsePlanYaml, readModifySubmission } from '../../src/bot/modify-submission.ts';
import { LIMITS, ModalViewSchema, type ModalView } from '../../src/bot/views/limits.ts';
import { modifyModal, planYaml, yamlChunks } from '../../src/bot/views/plan/modify-modal.ts';
import { makePlan } from '../fakes/slack-fixtures.ts';

/** The plan with a github_create_issue step whose body is `body`, between two ordinary steps. */
function planWithBody(body: string, title = 'Notes'): Plan {
  const plan = makePlan(2);
  const issue = { id: 's9', title: 'Open the issue', tool: 'github_create_issue', args: { repo: 'acme/api', title, body }, dependsOn: [] };
  return { ...plan, steps: [plan.steps[0]!, issue, plan.steps[1]!] };
}

/** What the submit handler gets back when the person changes nothing. */
function submitted(view: ModalView): unknown {
  const values = Object.fromEntries(
    view.blocks
      .filter((b) => b.type === 'input')
      .map((b) => [b.block_id!, { [b.element.action_id]: { value: ('initial_value' in b.element ? b.element.initial_value : undefined) ?? null } }]),
  );
  const parsed = parsePlanYaml(readModifySubmission({ private_metadata: view.private_metadata, state: { values } })!.parts);
  expect(parsed.ok).toBe(true);
  return parsed.ok ? parsed.value : undefined;
}

const yamlInputs = (view: ModalView) => view.blocks.filter((b) => b.type === 'input' && b.block_id!.startsWith('plan-yaml-'));

describe('Modify with a step longer than one input', () => {
  it('the review case: a 4,000-character issue body is offered as YAML over several inputs and comes back exact', () => {
    const body = 'Release notes line.\n'.repeat(200);
    const plan = planWithBody(body);
    const view = modifyModal({ runId: 'run_1', planVersion: 1, plan });
    expect(ModalViewSchema.safeParse(view).success).toBe(true);
    expect(JSON.stringify(view)).not.toContain('too large');
    expect(yamlInputs(view).length).toBeGreaterThan(1);
    const value = submitted(view) as Plan;
    expect(value.steps.map((step) => step.args)).toEqual(plan.steps.map((step) => step.args));
    expect(value.steps[1]!.args['body']).toBe(body);
  });

  it('falls back only when a single line is longer than an input holds', () => {
    const view = modifyModal({ runId: 'run_1', planVersion: 1, plan: planWithBody('x'.repeat(LIMITS.plainTextInput)) });
    expect(yamlInputs(view)).toEqual([]);
    expect(JSON.stringify(view)).toContain('too large to edit here');
  });

  it('any body: every input is within its limit and the inputs joined are the exact YAML, or one line is too long for an input', () => {
    const text = fc.oneof(
      { arbitrary: fc.constantFrom('\n', '\n\n', '  ', ' ', '#', ': ', '- ', '|', '"', "'", '\\', '\t', 'é', '😀', '\u2028'), weight: 4 },
      { arbitrary: fc.string({ unit: 'binary', maxLength: 120 }), weight: 2 },
      { arbitrary: fc.constantFrom('word '.repeat(100), 'x'.repeat(3000), 'line\n'.repeat(300)), weight: 1 },
    );
    const body = fc.array(text, { maxLength: 400, size: 'max' }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(body, fc.string({ maxLength: 300 }), (issueBody, title) => {
        const plan = planWithBody(issueBody, title || 'Notes');
        const whole = planYaml(plan);
        const chunks = yamlChunks(plan);
        if (!chunks) {
          // Too large only because some line of it cannot fit one input.
          expect(whole.split('\n').some((line) => line.length + 1 > LIMITS.plainTextInput - 100)).toBe(true);
          return;
        }
        for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(LIMITS.plainTextInput);
        // The submit joins the inputs with a newline: that is the whole YAML, to the character.
        expect(`${chunks.join('\n')}\n`).toBe(whole);
      }),
      { numRuns: 150, endOnFailure: true },
    );
  });
});
