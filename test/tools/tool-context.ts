import type { AnyTool, ToolContext, ToolResult } from '../../src/agent/ports/tool.ts';
import { createGithubClient, type Octokit } from '../../src/integrations/github/client.ts';

export interface TestContext extends ToolContext {
  notes: string[];
}

/** A ToolContext like the executor's: marker derived from run and step, progress notes kept for assertions. */
export function toolContext(overrides: Partial<ToolContext> = {}): TestContext {
  const runId = overrides.runId ?? `run-${Math.random().toString(36).slice(2, 8)}`;
  const stepId = overrides.stepId ?? 's1';
  const notes: string[] = [];
  return {
    runId,
    stepId,
    planVersion: 1,
    attempt: 1,
    marker: `tandem:${runId}/${stepId}`,
    startedAt: new Date(),
    signal: new AbortController().signal,
    progress: (note) => notes.push(note),
    log: { info: () => {}, warn: () => {} },
    notes,
    ...overrides,
  };
}

export function testGithub(url: string): Octokit {
  return createGithubClient({ token: 'ghp_testtoken0000000000000000000000', apiUrl: url, production: false });
}

/** Parses args the way the executor does (defaults applied) before calling run(). */
export async function runTool(tool: AnyTool, args: unknown, ctx: ToolContext = toolContext()): Promise<ToolResult> {
  return tool.run(tool.input.parse(args), ctx);
}

export function okOutput(result: ToolResult): Record<string, unknown> {
  if (result.status !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(result)}`);
  return result.output;
}

export function errorOf(result: ToolResult) {
  if (result.status !== 'error') throw new Error(`expected error, got ${JSON.stringify(result)}`);
  return result.error;
}
