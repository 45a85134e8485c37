import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { policyCommand } from '../../src/cli/policy-command.ts';
import type { CommandOptions } from '../../src/cli/command-options.ts';
import { loadConfig } from '../../src/config/config.ts';

const EXAMPLES = 'docs/policy/examples';
const options = (extra: Partial<CommandOptions> = {}): CommandOptions => ({
  limit: undefined,
  local: false,
  recorded: false,
  record: false,
  json: false,
  run: undefined,
  ...extra,
});

function run(args: string[], extra: Partial<CommandOptions> = {}, env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = policyCommand(
    args,
    options(extra),
    loadConfig(env),
    (line) => out.push(line),
    (line) => err.push(line),
  );
  return { code, out, err };
}

function tempPolicy(text: string): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'policy-')), 'rules.cedar');
  writeFileSync(file, text);
  return file;
}

describe('tandem policy', () => {
  const examples = readdirSync(EXAMPLES).filter((name) => name.endsWith('.cedar'));

  it('ships the four example rule sets', () => {
    expect(examples.sort()).toEqual(['no-self-approval.cedar', 'per-team-repositories.cedar', 'read-only-auto-run-in-ops.cedar', 'release-managers.cedar']);
  });

  it.each(examples)('check passes %s with no warning, and its cases all hold', (name) => {
    const file = path.join(EXAMPLES, name);
    expect(run(['check', file])).toMatchObject({ code: 0, err: [] });
    const tested = run(['test', file.replace(/\.cedar$/, '.cases.yaml')], { policy: file });
    expect(tested.out.filter((line) => line.startsWith('FAIL'))).toEqual([]);
    expect(tested.code).toBe(0);
  });

  it('test exits 1 and names the case when the policy decides otherwise', () => {
    const cases = tempPolicy(
      'cases:\n  - { name: a stranger merges, user: U_X, action: approve, tool: github_merge_pull, risk: destructive, repo: acme/api, expect: permit }\n',
    );
    const tested = run(['test', cases], { policy: path.join(EXAMPLES, 'per-team-repositories.cedar') });
    expect(tested.code).toBe(1);
    expect(tested.out[0]).toBe('FAIL a stranger merges: expected permit, got deny');
  });

  it('check reports a rule that does not parse, or names an unknown action or attribute, as file:line:column', () => {
    const unparsable = tempPolicy('permit(principal, action, resource)\nwhen { resource.risk == };\n');
    expect(run(['check', unparsable]).err).toEqual([expect.stringMatching(new RegExp(`^${unparsable}:2:\\d+ .*unexpected token`))]);
    const unknownAction = tempPolicy('\npermit(principal, action == Action::"aprove", resource);\n');
    expect(run(['check', unknownAction])).toMatchObject({
      code: 1,
      err: [expect.stringMatching(new RegExp(`^${unknownAction}:2:29 .*unrecognized action .*did you mean`))],
    });
    const unknownAttribute = tempPolicy(
      'permit(principal in Group::"S1", action == Action::"approve", resource is Step)\n  when { resource.repo == "acme/api" };\n',
    );
    expect(run(['check', unknownAttribute])).toMatchObject({
      code: 1,
      err: [expect.stringMatching(new RegExp(`^${unknownAttribute}:2:10 .*attribute \`repo\``))],
    });
  });

  it('check warns on a rule with no condition on principal (it permits everyone)', () => {
    const everyone = tempPolicy('@id("oops")\npermit(principal, action == Action::"approve", resource is Step);\n');
    const checked = run(['check', everyone]);
    expect(checked.code).toBe(0);
    expect(checked.err).toEqual([`warning: ${everyone}:1:1 rule "oops" has no condition on principal: it permits everyone`]);
  });

  it('test says in one line that a cases file it cannot read is missing, and exits 1', () => {
    const tested = run(['test', 'no/such/cases.yaml'], { policy: path.join(EXAMPLES, 'no-self-approval.cedar') });
    expect(tested).toEqual({ code: 1, out: [], err: ['no/such/cases.yaml: cannot read the cases (ENOENT)'] });
  });

  it('explain gives the decision and the rules behind it', () => {
    const policy = path.join(EXAMPLES, 'per-team-repositories.cedar');
    const ask = (user: string, groups: string[]) =>
      run(['explain'], { policy, user, group: groups, action: 'approve', tool: 'github_merge_pull', risk: 'destructive', repo: 'acme/api', requester: 'U_DEV' })
        .out;
    // The rule takes two people (@approvals("2")): explain says so, not a bare permit.
    expect(ask('U_ANA', ['S_API_OWNERS'])).toEqual(['permit', `  permit api-merges (${policy}:19): needs 2 approvals (two members of @api-owners)`]);
    expect(ask('U_WEB', ['S_WEB_TEAM'])).toEqual(['deny', '  no rule matched: nothing is permitted unless a rule permits it']);
  });

  it("explain and test take a built-in tool's own risk, as the bot does, and refuse a case that says another", () => {
    // No --risk: a merge is destructive, so the requester may not approve it alone (four eyes), as in the bot.
    const env = { TANDEM_APPROVERS: 'U1' };
    expect(run(['explain'], { user: 'U1', action: 'approve', tool: 'github_merge_pull', requester: 'U1' }, env).out).toEqual([
      'deny',
      '  forbid four-eyes (built-in.cedar:8)',
    ]);
    expect(() => run(['explain'], { user: 'U1', action: 'approve', tool: 'github_merge_pull', risk: 'read', requester: 'U1' }, env)).toThrow(
      'policy explain: --risk: github_merge_pull is destructive, not read',
    );
    expect(() => run(['explain'], { user: 'U1', action: 'approve', tool: 'mcp_ops_restart', requester: 'U2' }, env)).toThrow(
      /--risk: mcp_ops_restart is not a built-in tool, so say its risk/,
    );
    const cases = tempPolicy(
      'cases:\n  - { name: self-merge, user: U1, action: approve, tool: github_merge_pull, requester: U1, expect: deny }\n' +
        '  - { name: a merge said to be a read, user: U1, action: approve, tool: github_merge_pull, risk: read, requester: U2, expect: permit }\n',
    );
    expect(run(['test', cases], {}, env)).toEqual({
      code: 1,
      out: [],
      err: [`${cases}: case "a merge said to be a read": risk: github_merge_pull is destructive, not read`],
    });
    const self = tempPolicy('cases:\n  - { name: self-merge, user: U1, action: approve, tool: github_merge_pull, requester: U1, expect: deny }\n');
    expect(run(['test', self], {}, env)).toMatchObject({ code: 0, out: ['ok   self-merge: expected deny, got deny (four-eyes)', '1 of 1 cases as expected'] });
  });

  it("explain's --target reaches rules that read the step's target", () => {
    const policy = path.join(EXAMPLES, 'release-managers.cedar');
    const ask = (target: string) =>
      run(['explain'], {
        policy,
        user: 'U_DEV2',
        group: ['S_ENGINEERS'],
        action: 'approve',
        tool: 'github_dispatch_workflow',
        repo: 'acme/api',
        target,
        requester: 'U_DEV',
      }).out[0];
    expect(ask('deploy.yml')).toBe('deny');
    expect(ask('lint.yml')).toBe('permit');
  });

  it('with TANDEM_POLICY unset, check and explain speak of the built-in policy made from the settings', () => {
    expect(run(['check'], {}, { TANDEM_APPROVERS: 'U1' }).out[0]).toMatch(/^built-in policy \(TANDEM_POLICY unset\): \d+ rules, valid/);
    const explained = run(
      ['explain'],
      { user: 'U1', action: 'approve', tool: 'github_merge_pull', risk: 'destructive', requester: 'U1' },
      { TANDEM_APPROVERS: 'U1' },
    );
    expect(explained.out).toEqual(['deny', '  forbid four-eyes (built-in.cedar:8)']);
  });
});
