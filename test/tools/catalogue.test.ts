import { describe, expect, it } from 'vitest';
import { createBuiltinTools } from '../../src/integrations/tools/builtin-tools.ts';
import { toolCatalogue } from '../../src/integrations/tools/catalogue.ts';

/** The documented tool table (README: Tools): name → [risk, required args, optional args]. */
const DOCUMENTED_TOOLS: Record<string, [string, string[], string[]]> = {
  github_get_repo: ['read', ['repo'], []],
  github_list_pulls: ['read', ['repo'], ['state', 'base', 'limit']],
  github_get_pull: ['read', ['repo', 'number'], []],
  github_list_workflow_runs: ['read', ['repo'], ['workflow', 'branch', 'status', 'limit']],
  github_get_workflow_run: ['read', ['repo', 'runId'], []],
  github_compare: ['read', ['repo', 'base', 'head'], []],
  github_search_issues: ['read', ['query'], ['limit']],
  github_create_issue: ['write', ['repo', 'title'], ['body', 'labels', 'assignees']],
  github_comment: ['write', ['repo', 'number', 'body'], []],
  github_add_labels: ['write', ['repo', 'number', 'labels'], []],
  github_create_release: ['write', ['repo', 'tag'], ['name', 'body', 'target', 'draft', 'prerelease']],
  github_dispatch_workflow: ['write', ['repo', 'workflow', 'ref'], ['inputs', 'wait', 'timeoutS']],
  github_merge_pull: ['destructive', ['repo', 'number'], ['method']],
  http_check: ['read', ['url'], ['method', 'expectStatus', 'contains', 'timeoutMs']],
  slack_notify: ['write', ['channel', 'text'], []],
  wait: ['read', ['seconds'], []],
  llm_task: ['read', ['instruction'], ['inputs']],
  agent_task: ['read', ['instruction', 'tools'], ['inputs', 'maxCalls']],
  ask_human: ['read', ['question'], []],
};

describe('built-in tool catalogue', () => {
  const catalogue = toolCatalogue(createBuiltinTools({ github: undefined, slack: undefined, llm: undefined, httpAllow: ['status.example.com'] }));

  it('lists exactly the contract tools with their risks', () => {
    expect(catalogue.map((entry) => entry.name).sort()).toEqual(Object.keys(DOCUMENTED_TOOLS).sort());
    for (const entry of catalogue) expect(entry.risk, entry.name).toBe(DOCUMENTED_TOOLS[entry.name]![0]);
  });

  it('gives each tool a JSON Schema whose required and optional args match the contract', () => {
    for (const entry of catalogue) {
      const [, required, optional] = DOCUMENTED_TOOLS[entry.name]!;
      const schema = JSON.parse(JSON.stringify(entry.inputSchema)) as { type: string; required?: string[]; properties: Record<string, unknown> };
      expect(schema.type, entry.name).toBe('object');
      expect((schema.required ?? []).sort(), entry.name).toEqual([...required].sort());
      expect(Object.keys(schema.properties).sort(), entry.name).toEqual([...required, ...optional].sort());
      expect(entry.description.length, entry.name).toBeGreaterThan(40);
    }
  });

  it('tells the planner which hosts http_check may reach', () => {
    expect(catalogue.find((entry) => entry.name === 'http_check')!.description).toContain('status.example.com');
  });
});
