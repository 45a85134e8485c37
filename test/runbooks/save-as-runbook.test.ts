import { describe, expect, it } from 'vitest';
import { PlanSchema } from '../../src/agent/model/plan/plan.ts';
import { matchRunbook } from '../../src/runbooks/match-runbook.ts';
import { draftRunbook } from '../../src/runbooks/save-as-runbook.ts';

const plan = PlanSchema.parse({
  goal: 'Publish release v2.4.0 of acme/api to production',
  confidence: 0.8,
  steps: [
    { id: 's1', title: 'Compare v2.3.0...main', tool: 'github_compare', args: { repo: 'acme/api', base: 'v2.3.0', head: 'main' } },
    { id: 's2', title: 'Create v2.4.0', tool: 'github_create_release', dependsOn: ['s1'], args: { repo: 'acme/api', tag: 'v2.4.0', body: 'Changes: {{steps.s1.output.url}}' } },
    { id: 's3', title: 'Tell prod', tool: 'slack_notify', dependsOn: ['s2'], args: { channel: '#prod-releases', text: 'acme/api v2.4.0 is out' } },
  ],
});

describe('draftRunbook', () => {
  it('turns marked values into placeholders in the task and in every string of the plan', () => {
    const draft = draftRunbook({ task: 'cut release v2.4.0 of acme/api since v2.3.0', plan, params: { tag: 'v2.4.0', repo: 'acme/api', previous: 'v2.3.0' } });
    if (!draft.ok) throw new Error(draft.error);
    expect(draft.value.pattern).toBe('cut release {tag} of {repo} since {previous}');
    expect(draft.value.name).toBe('cut-release-of-since');
    expect(draft.value.params).toEqual(['tag', 'repo', 'previous']);
    expect(draft.value.plan.goal).toBe('Publish release {tag} of {repo} to production');
    expect(draft.value.plan.steps[1]?.args).toEqual({ repo: '{repo}', tag: '{tag}', body: 'Changes: {{steps.s1.output.url}}' });
    // "prod" inside "#prod-releases" is not a value that was marked; nothing else is touched.
    expect(draft.value.plan.steps[2]?.args).toEqual({ channel: '#prod-releases', text: '{repo} {tag} is out' });

    const again = matchRunbook('cut release v3.0.0 of acme/web since v2.9.1', [{ ...draft.value, description: '', preApproved: false, source: 'run:x', createdBy: 'U1' }]);
    expect(again?.plan.steps[1]?.args).toEqual({ repo: 'acme/web', tag: 'v3.0.0', body: 'Changes: {{steps.s1.output.url}}' });
  });

  it('replaces only whole values', () => {
    const draft = draftRunbook({ task: 'deploy main of acme/api to prod', plan: { ...plan, goal: 'Deploy main to prod, not production' }, params: { env: 'prod' }, name: 'deploy-main' });
    if (!draft.ok) throw new Error(draft.error);
    expect(draft.value.plan.goal).toBe('Deploy main to {env}, not production');
    expect(draft.value.pattern).toBe('deploy main of acme/api to {env}');
  });

  it('refuses a value the task does not contain, and bad names', () => {
    const missing = draftRunbook({ task: 'cut release v2.4.0 of acme/api', plan, params: { tag: 'v9.9.9' } });
    expect(missing).toEqual({ ok: false, error: expect.stringContaining('does not contain "v9.9.9" (for {tag})') });
    expect(draftRunbook({ task: 'cut release v2.4.0', plan, params: { 'my tag': 'v2.4.0' } }).ok).toBe(false);
    expect(draftRunbook({ task: 'cut release v2.4.0', plan, params: { tag: 'v2.4.0' }, name: 'has spaces' }).ok).toBe(false);
  });
});
