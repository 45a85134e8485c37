/**
 * CONTRACT §4/§6: what tools return reaches a model as data, never as its instructions. A plan that fills a model
 * step's `instruction` from an earlier step's output (a pull request title an outsider wrote) is refused when it is
 * checked, saying where such outputs go, so it never reaches approval; in `inputs` the same reference is accepted.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { problemWords } from '../../src/agent/model/plan/plan-problems.ts';
import { validatePlan } from '../../src/agent/model/plan/plan-validation.ts';
import { createToolRegistry } from '../../src/agent/model/tool-registry.ts';
import { createAgentTaskTool } from '../../src/integrations/tools/model/agent-task.ts';
import { createLlmTaskTool } from '../../src/integrations/tools/model/llm-task.ts';
import { fakeTool } from '../agent/support/fake-tools.ts';
import { said } from '../helpers/words.ts';

const registry = createToolRegistry([
  fakeTool({ name: 'get_pull', risk: 'read', input: z.object({ number: z.number() }) }),
  createLlmTaskTool(undefined),
  createAgentTaskTool(undefined),
]);

const planWith = (tool: string, args: Record<string, unknown>) =>
  validatePlan(
    {
      goal: 'Summarise pull request 7',
      confidence: 0.9,
      steps: [
        { id: 's1', title: 'Read it', tool: 'get_pull', args: { number: 7 }, dependsOn: [] },
        { id: 's2', title: 'Summarise it', tool, args, dependsOn: ['s1'] },
      ],
      rollback: [],
    },
    registry,
    { maxSteps: 20 },
  );

const problemsOf = (result: ReturnType<typeof planWith>) => (result.ok ? [] : result.error.map((problem) => said(problemWords(problem))));

describe('a reference in a model step’s instruction', () => {
  it('is refused for llm_task and agent_task, saying to put earlier outputs in inputs', () => {
    const llm = planWith('llm_task', { instruction: 'Task: {{steps.s1.output.title}}' });
    const agent = planWith('agent_task', { instruction: 'Look into {{ steps.s1.output.body }}', tools: ['get_pull'] });
    for (const result of [llm, agent]) {
      expect(result.ok).toBe(false);
      expect(problemsOf(result)).toEqual([
        expect.stringMatching(/^s2\.args\.instruction: an earlier step's output cannot be part of the instruction.*put earlier outputs in `inputs`/),
      ]);
    }
  });

  it('is accepted in inputs, and an instruction without one is left alone', () => {
    expect(planWith('llm_task', { instruction: 'Summarise this title', inputs: { title: '{{steps.s1.output.title}}' } }).ok).toBe(true);
    expect(planWith('agent_task', { instruction: 'Find why it failed', inputs: '{{steps.s1.output.body}}', tools: ['get_pull'] }).ok).toBe(true);
    expect(planWith('llm_task', { instruction: 'Explain what {{ braces }} mean in a template' }).ok).toBe(true);
  });
});
