import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  mayApproveOrConfirm,
  mayAutoRun,
  mayRemoveSchedule,
  mayResolveSaveOrSchedule,
  mayStopOrSteer,
  type RequesterAction,
} from './support/settings-oracle.ts';
import type { PolicyAction, PolicyQuestion } from '../../src/agent/ports/policy.ts';
import type { Risk } from '../../src/agent/ports/tool.ts';
import { isRepositoryAllowed } from '../../src/agent/model/repository-allow-list.ts';
import { builtinPolicy } from '../../src/policy/builtin-policy.ts';
import { loadPolicy } from '../../src/policy/cedar-engine.ts';

const USERS = ['U1', 'U2', 'U3', 'U4'];
const GROUPS = ['S1', 'S2'];
const REPOSITORIES = ['acme/api', 'acme/web', 'other/x', ''];

const settings = fc.record({
  approvers: fc.subarray([...USERS.slice(0, 2), ...GROUPS]),
  autoRunReadOnly: fc.boolean(),
  repos: fc.option(fc.subarray(['acme/*', 'other/x', 'acme/api']), { nil: undefined }),
  membership: fc.dictionary(fc.constantFrom(...USERS), fc.subarray(GROUPS)),
});

type Case =
  | { kind: 'approve' | 'confirm' | 'auto_run'; risk: Risk; repository: string }
  | { kind: 'steer'; action: RequesterAction }
  | { kind: 'resolve'; action: 'retry' | 'skip' | 'replan' | 'abort' }
  | { kind: 'save_runbook' | 'schedule' | 'remove-schedule' };

const cases: fc.Arbitrary<Case> = fc.oneof(
  fc.record({
    kind: fc.constantFrom('approve', 'confirm', 'auto_run'),
    risk: fc.constantFrom<Risk>('read', 'write', 'destructive'),
    repository: fc.constantFrom(...REPOSITORIES),
  }),
  fc.record({ kind: fc.constant('steer'), action: fc.constantFrom<RequesterAction>('reject', 'edit', 'revise', 'answer', 'cancel', 'abort') }),
  fc.record({ kind: fc.constant('resolve'), action: fc.constantFrom('retry', 'skip', 'replan', 'abort') }),
  fc.record({ kind: fc.constantFrom('save_runbook', 'schedule', 'remove-schedule') }),
) as fc.Arbitrary<Case>;

/** The settings' answer, as the product gave it before the built-in policy (test/policy/support/settings-oracle.ts), with the repository allow-list. */
type Settings = typeof settings extends fc.Arbitrary<infer S> ? S : never;

function today(s: Settings, c: Case, user: string, requester: string): boolean {
  const groupsOf = (id: string) => s.membership[id] ?? [];
  const oracle = {
    isApprover: (id: string) => s.approvers.length === 0 || s.approvers.includes(id) || groupsOf(id).some((g) => s.approvers.includes(g)),
    autoRunReadOnly: s.autoRunReadOnly,
  };
  const repoAllowed = (repository: string) => repository === '' || s.repos === undefined || isRepositoryAllowed(s.repos, repository);
  switch (c.kind) {
    case 'approve':
    case 'confirm':
      return repoAllowed(c.repository) && mayApproveOrConfirm(oracle, c.risk, user, requester);
    case 'auto_run':
      return repoAllowed(c.repository) && mayAutoRun(oracle, c.risk);
    case 'steer':
      return mayStopOrSteer(oracle, user, requester);
    case 'resolve':
    case 'save_runbook':
    case 'schedule':
      return mayResolveSaveOrSchedule(oracle, user);
    case 'remove-schedule':
      return mayRemoveSchedule(oracle, user, requester);
  }
}

const STEER: Record<RequesterAction, PolicyAction> = { reject: 'cancel', edit: 'replan', revise: 'replan', answer: 'answer', cancel: 'cancel', abort: 'abort' };

function question(c: Case, user: string, groups: readonly string[], requester: string): PolicyQuestion {
  const situation = { requester, channel: 'C1', escalated: c.kind === 'resolve' };
  const run = { kind: 'run' as const, runId: 'r1', requester, channel: 'C1' };
  switch (c.kind) {
    case 'approve':
    case 'confirm':
    case 'auto_run':
      return {
        user,
        groups,
        action: c.kind,
        resource: { kind: 'step', step: { id: 's1', tool: 't', risk: c.risk, repository: c.repository, channel: 'C1', target: '', rollback: false } },
        situation,
      };
    case 'steer':
      return { user, groups, action: STEER[c.action], resource: run, situation };
    case 'resolve':
      return { user, groups, action: c.action, resource: run, situation };
    case 'save_runbook':
      return { user, groups, action: 'save_runbook', resource: run, situation };
    case 'schedule':
    case 'remove-schedule':
      return {
        user,
        groups,
        action: c.kind === 'schedule' ? 'schedule' : 'cancel',
        resource: { kind: 'schedule', scheduleId: 'sc1', channel: 'C1', createdBy: requester, intervalSeconds: 3600 },
        situation,
      };
  }
}

describe('the built-in policy (no TANDEM_POLICY)', () => {
  it("decides exactly as today's settings did, over generated approvers, groups, risks, repositories and actions", async () => {
    await fc.assert(
      fc.asyncProperty(
        settings,
        fc.array(fc.tuple(cases, fc.constantFrom(...USERS), fc.constantFrom(...USERS)), { minLength: 1, maxLength: 15 }),
        async (s, questions) => {
          const loaded = loadPolicy([builtinPolicy({ approvers: s.approvers, autoRunReadOnly: s.autoRunReadOnly, repos: s.repos })]);
          if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
          for (const [c, user, requester] of questions) {
            const groups = (s.membership[user] ?? []).filter((g) => loaded.value.groups.includes(g));
            const decided = loaded.value.decide(question(c, user, groups, requester));
            expect(decided.errors).toEqual([]);
            expect({ c, user, requester, permitted: decided.permitted }).toEqual({ c, user, requester, permitted: today(s, c, user, requester) });
          }
        },
      ),
      { numRuns: 120 },
    );
  });

  it('names the rule that refused: four-eyes for a requester approving a destructive step, the allow-list for another repository', () => {
    const loaded = loadPolicy([builtinPolicy({ approvers: ['U1'], autoRunReadOnly: false, repos: ['acme/*'] })]);
    if (!loaded.ok) throw new Error('built-in policy did not load');
    const step = { id: 's1', tool: 'github_merge_pull', risk: 'destructive' as const, repository: 'acme/api', channel: 'C1', target: '7', rollback: true };
    const ask = (repository: string, requester: string) =>
      loaded.value.decide({
        user: 'U1',
        groups: [],
        action: 'approve',
        resource: { kind: 'step', step: { ...step, repository } },
        situation: { requester, channel: 'C1' },
      });
    expect(ask('acme/api', 'U1')).toMatchObject({ permitted: false, rules: ['four-eyes'] });
    expect(ask('other/x', 'U2')).toMatchObject({ permitted: false, rules: ['repositories'] });
    expect(ask('acme/api', 'U2')).toMatchObject({ permitted: true, rules: ['approvers-approve'] });
  });
});
