import { describe, expect, it } from 'vitest';
import { descendantsOf, dispatch } from '../../src/agent/execution/ready-steps.ts';
import type { StepStatus } from '../../src/agent/ports/run-store.ts';

const diamond = [
  { id: 'a', dependsOn: [] },
  { id: 'b', dependsOn: ['a'] },
  { id: 'c', dependsOn: ['a'] },
  { id: 'd', dependsOn: ['b', 'c'] },
  { id: 'e', dependsOn: [] },
];
const statuses = (map: Record<string, StepStatus>) => (id: string) => map[id];

describe('dispatcher', () => {
  it('starts every step whose dependencies all succeeded, at once', () => {
    expect(dispatch(diamond, statuses({})).ready).toEqual(['a', 'e']);
    expect(dispatch(diamond, statuses({ a: 'succeeded', e: 'running' })).ready).toEqual(['b', 'c']);
    expect(dispatch(diamond, statuses({ a: 'succeeded', b: 'succeeded', c: 'running', e: 'succeeded' })).ready).toEqual([]);
    expect(dispatch(diamond, statuses({ a: 'succeeded', b: 'succeeded', c: 'succeeded', e: 'succeeded' })).ready).toEqual(['d']);
  });

  it('skips everything behind a failure, with the reason, and nothing else', () => {
    const decision = dispatch(diamond, statuses({ a: 'succeeded', b: 'failed', e: 'running' }));
    expect(decision.skip).toEqual([{ stepId: 'd', reason: 'skipped: b failed' }]);
    expect(decision.ready).toEqual(['c']);
    const chain = dispatch(diamond, statuses({ a: 'uncertain' }));
    expect(chain.skip.map((s) => s.stepId).sort()).toEqual(['b', 'c', 'd']);
    expect(chain.skip.find((s) => s.stepId === 'd')?.reason).toBe('skipped: b was skipped');
  });

  it('does not start a step waiting for an answer', () => {
    expect(dispatch(diamond, statuses({ a: 'waiting' })).ready).toEqual(['e']);
  });

  it('finds descendants', () => {
    expect([...descendantsOf(diamond, 'a')].sort()).toEqual(['b', 'c', 'd']);
    expect([...descendantsOf(diamond, 'e')]).toEqual([]);
  });
});
