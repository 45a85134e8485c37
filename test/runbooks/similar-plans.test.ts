import { describe, expect, it } from 'vitest';
import { PlanSchema } from '../../src/agent/model/plan/plan.ts';
import { similarPlans, taskWords } from '../../src/runbooks/similar-plans.ts';

const plan = (goal: string) => PlanSchema.parse({ goal, confidence: 0.9, steps: [{ id: 's1', title: goal, tool: 'wait', args: { seconds: 1 } }] });

describe('similarPlans', () => {
  const past = [
    { task: 'deploy main of acme/web to staging', plan: plan('web staging') },
    { task: 'triage open pull requests in acme/api', plan: plan('triage') },
    { task: 'deploy v2.4.0 of acme/api to production', plan: plan('api prod') },
    { task: 'deploy main of acme/api to staging', plan: plan('api staging') },
    { task: 'rotate the on-call schedule', plan: plan('rotate') },
  ];

  it('orders past runs by shared words over all words, most similar first, and leaves out unrelated ones', () => {
    const found = similarPlans('deploy main of acme/api to production', past, 3);
    // Both api deploys share 3 of 5 words (a tie, kept in the store's order); the web deploy shares 2 of 6.
    expect(found.map((run) => run.task)).toEqual(['deploy v2.4.0 of acme/api to production', 'deploy main of acme/api to staging', 'deploy main of acme/web to staging']);
    expect(found.map((run) => run.sharedWords)).toEqual([['deploy', 'acme/api', 'production'], ['deploy', 'main', 'acme/api'], ['deploy', 'main']]);
    expect(found.map((run) => run.score)).toEqual([3 / 5, 3 / 5, 2 / 6]);
    expect(similarPlans('rotate the on-call schedule', past, 5).map((run) => run.plan.goal)).toEqual(['rotate']);
    expect(similarPlans('something else entirely', past, 5)).toEqual([]);
  });

  it('breaks ties by the order the store gave (newest first)', () => {
    const twins = [
      { task: 'check health of api', plan: plan('newer') },
      { task: 'check health of api', plan: plan('older') },
    ];
    expect(similarPlans('check health of api', twins, 1).map((run) => run.plan.goal)).toEqual(['newer']);
  });

  it('ignores case and stop-words and keeps repo names and versions whole', () => {
    expect([...taskWords('Please deploy V2.4.0 of Acme/API to the prod')]).toEqual(['deploy', 'v2.4.0', 'acme/api', 'prod']);
  });
});
