import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { lateBoundTargetNames, targetArgNames, targetArgs, wordSteps } from '../../src/agent/model/step-targets.ts';
import { createBuiltinTools } from '../../src/integrations/tools/index.ts';

const builtins = createBuiltinTools({ github: undefined, slack: undefined, llm: undefined, httpAllow: [] });
const tools = new Map(builtins.map((tool) => [tool.name, tool]));
const toolOf = (name: string) => tools.get(name);

describe('step targets', () => {
  it('every built-in tool declares its targets, each an arg of its own schema', () => {
    for (const tool of builtins) {
      expect(tool.targets, tool.name).toBeDefined();
      const keys = Object.keys((tool.input as z.ZodObject).shape);
      for (const name of tool.targets!) expect(keys, `${tool.name}.${name}`).toContain(name);
      if (tool.risk !== 'read') expect(tool.targets!.length, tool.name).toBeGreaterThan(0);
    }
  });

  it('names the object a write acts on, in the order a person reads it, never its content', () => {
    expect(targetArgNames(toolOf('github_merge_pull'), { method: 'squash', number: 7, repo: 'acme/api' })).toEqual(['repo', 'number']);
    expect(targetArgNames(toolOf('github_create_release'), { repo: 'acme/api', tag: 'v1', body: 'notes', target: 'main' })).toEqual(['repo', 'tag', 'target']);
    expect(targetArgNames(toolOf('github_create_release'), { repo: 'acme/api', tag: 'v1' })).toEqual(['repo', 'tag']);
    expect(targetArgNames(toolOf('github_dispatch_workflow'), { repo: 'a/b', workflow: 'deploy.yml', ref: 'main', inputs: {} })).toEqual([
      'repo',
      'workflow',
      'ref',
    ]);
    expect(targetArgNames(toolOf('slack_notify'), { channel: '#ops', text: 'hi' })).toEqual(['channel']);
    expect(targetArgs(toolOf('github_comment'), { repo: 'a/b', number: 3, body: 'x' })).toEqual([
      ['repo', 'a/b'],
      ['number', 3],
    ]);
  });

  it('a tool that declares no targets (an MCP tool, an unknown tool) has every arg counted', () => {
    expect(targetArgNames({}, { host: 'db1', action: 'restart' })).toEqual(['host', 'action']);
    expect(targetArgNames(undefined, { x: 1 })).toEqual(['x']);
  });

  it('finds targets filled from a person or a model, directly or through a step that read what they named', () => {
    const steps = [
      { stepId: 'ask', tool: 'ask_human', args: { question: 'which PR?' } },
      { stepId: 'pick', tool: 'llm_task', args: { instruction: 'pick a PR' } },
      { stepId: 'get', tool: 'github_get_pull', args: { repo: 'acme/api', number: '{{steps.ask.output.answer}}' } },
      { stepId: 'list', tool: 'github_list_pulls', args: { repo: 'acme/api' } },
    ];
    const words = wordSteps(steps, toolOf);
    expect([...words].sort()).toEqual(['ask', 'get', 'pick']);
    const merge = toolOf('github_merge_pull');
    expect(lateBoundTargetNames(merge, { repo: 'acme/api', number: '{{steps.ask.output.answer}}' }, words)).toEqual(['number']);
    expect(lateBoundTargetNames(merge, { repo: 'acme/{{steps.pick.output.text}}', number: 1 }, words)).toEqual(['repo']);
    expect(lateBoundTargetNames(merge, { repo: 'acme/api', number: '{{steps.get.output.number}}' }, words)).toEqual(['number']);
    expect(lateBoundTargetNames(merge, { repo: 'acme/api', number: '{{steps.list.output.pulls.0.number}}' }, words)).toEqual([]);
    // Content filled from a person is not a target: a comment body needs no Confirm.
    expect(lateBoundTargetNames(toolOf('github_comment'), { repo: 'a/b', number: 2, body: '{{steps.ask.output.answer}}' }, words)).toEqual([]);
  });
});

describe('step targets, whatever order the plan lists its steps in', () => {
  // ask → get (reads the PR the person named) → checks (reads that PR's checks) → merge: each step's
  // target comes from the one before, so all three inherit the person's words.
  const chain = [
    { stepId: 'ask', tool: 'ask_human', args: { question: 'which PR?' } },
    { stepId: 'get', tool: 'github_get_pull', args: { repo: 'acme/api', number: '{{steps.ask.output.answer}}' } },
    { stepId: 'checks', tool: 'github_get_pull', args: { repo: 'acme/api', number: '{{steps.get.output.number}}' } },
    { stepId: 'list', tool: 'github_list_pulls', args: { repo: 'acme/api' } },
    { stepId: 'late', tool: 'github_get_pull', args: { repo: 'acme/api', number: '{{steps.checks.output.number}}' } },
  ];

  it('a taint chain listed against its dependency order is still followed to its end (issue 37)', () => {
    const reversed = [...chain].reverse();
    expect([...wordSteps(reversed, toolOf)].sort()).toEqual(['ask', 'checks', 'get', 'late']);
    const merge = toolOf('github_merge_pull');
    expect(lateBoundTargetNames(merge, { repo: 'acme/api', number: '{{steps.late.output.number}}' }, wordSteps(reversed, toolOf))).toEqual(['number']);
  });

  it('for any order of the steps, the same steps carry words', () => {
    fc.assert(
      fc.property(fc.shuffledSubarray(chain, { minLength: chain.length, maxLength: chain.length }), (order) => {
        expect([...wordSteps(order, toolOf)].sort()).toEqual(['ask', 'checks', 'get', 'late']);
      }),
    );
  });

  it('an arg left undefined is no target, and nothing is tainted when no step reads words', () => {
    expect(targetArgNames(toolOf('github_merge_pull'), { repo: 'acme/api', number: undefined })).toEqual(['repo']);
    expect([...wordSteps([chain[3]!], toolOf)]).toEqual([]);
  });
});
