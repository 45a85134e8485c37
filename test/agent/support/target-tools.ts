/**
 * Fake GitHub-like writes that say which args are their targets, so a value a person or a model filled into them
 * waits for a Confirm: the Confirm, expiry and audit tests share them.
 */
import { z } from 'zod';
import { NumberArg, RepoSchema } from '../../../src/integrations/github/repo-ref.ts';
import { fakeTool, type FakeTool } from './fake-tools.ts';

const PULL = { repo: RepoSchema, number: NumberArg };

/** A destructive merge of a numbered pull request in a repository (both its targets). */
export function mergePullTool(extra: z.ZodRawShape = {}): FakeTool {
  return {
    ...fakeTool({
      name: 'merge_pull',
      risk: 'destructive',
      input: z.object({ ...PULL, ...extra }),
      run: (args) => ({ status: 'ok', output: { merged: true, number: args.number } }),
    }),
    targets: ['repo', 'number'],
  };
}

/** A comment on a numbered issue or pull request (a write; its targets the repository and number). */
export function commentTool(): FakeTool {
  return { ...fakeTool({ name: 'comment', risk: 'write', input: z.object({ ...PULL, body: z.string() }) }), targets: ['repo', 'number'] };
}

/** A write that creates thing number 5 and names no target. */
export function createThingTool(): FakeTool {
  return {
    ...fakeTool({ name: 'create_thing', risk: 'write', input: z.object({ title: z.string() }), run: () => ({ status: 'ok', output: { number: 5 } }) }),
    targets: [],
  };
}
