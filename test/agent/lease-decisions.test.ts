import { describe, expect, it } from 'vitest';
import { adoptionGraceMs, newlyAdopted, releaseEffect, runsLostToPeers, takeDeadline, takePollMs } from '../../src/agent/replicas/lease-decisions.ts';

const holds = (entries: Partial<Record<string, number>>) =>
  new Map(Object.entries(entries).filter((entry): entry is [string, number] => entry[1] !== undefined));

describe('lease decisions', () => {
  it.each([
    { case: 'all renewed: nothing lost', asked: ['a', 'b'], renewed: ['a', 'b'], held: { a: 1, b: 2 }, lost: [] },
    { case: 'a run the store did not renew was taken by a peer', asked: ['a', 'b'], renewed: ['a'], held: { a: 1, b: 1 }, lost: ['b'] },
    { case: 'a run released while the renewal was on its way is let go, not lost', asked: ['a', 'b'], renewed: ['a'], held: { a: 1 }, lost: [] },
    { case: 'every lease gone (a peer adopted all)', asked: ['a', 'b'], renewed: [], held: { a: 1, b: 1 }, lost: ['a', 'b'] },
    { case: 'nothing asked', asked: [], renewed: [], held: {}, lost: [] },
  ])('runsLostToPeers: $case', ({ asked, renewed, held, lost }) => {
    expect(runsLostToPeers(asked, renewed, holds(held))).toEqual(lost);
  });

  it.each([
    { case: 'a run nobody here holds is new', held: {}, claiming: {}, releasing: [], adopted: ['a'], letGo: [] },
    { case: 'a run held here came back only because the scan renewed it', held: { a: 1 }, claiming: {}, releasing: [], adopted: [], letGo: [] },
    { case: 'a run whose claim here is on its way is held by that claim', held: {}, claiming: { a: 1 }, releasing: [], adopted: [], letGo: [] },
    { case: 'a run whose release here is on its way is let go of again, not adopted', held: {}, claiming: {}, releasing: ['a'], adopted: [], letGo: ['a'] },
    { case: 'a release on its way and a claim after it: the claim holds it', held: {}, claiming: { a: 1 }, releasing: ['a'], adopted: [], letGo: [] },
  ])('newlyAdopted: $case', ({ held, claiming, releasing, adopted, letGo }) => {
    const decided = newlyAdopted([{ id: 'a' }], holds(held), holds(claiming), new Set(releasing));
    expect({ adopted: decided.adopted.map((run) => run.id), letGo: decided.letGo.map((run) => run.id) }).toEqual({ adopted, letGo });
  });

  it.each([
    { holds: undefined, effect: 'not-held' },
    { holds: 3, effect: 'one-hold-fewer' },
    { holds: 2, effect: 'one-hold-fewer' },
    { holds: 1, effect: 'release-lease' },
  ])('releasing one of $holds holds: $effect', ({ holds: count, effect }) => {
    expect(releaseEffect(count)).toBe(effect);
  });

  it('take waits a lease and a beat, polling a quarter of the refresh interval within 10–200 ms', () => {
    const timing = { leaseMs: 30_000, heartbeatMs: 10_000, refreshMs: 1_000 };
    expect(takeDeadline(1_000, timing)).toBe(41_000);
    expect(takePollMs(timing)).toBe(200);
    expect(takePollMs({ ...timing, refreshMs: 400 })).toBe(100);
    expect(takePollMs({ ...timing, refreshMs: 8 })).toBe(10);
  });

  it('an adoption scan waits at most 5 s past a lease, and never longer than a lease', () => {
    expect(adoptionGraceMs({ leaseMs: 30_000, heartbeatMs: 10_000, refreshMs: 1_000 })).toBe(5_000);
    expect(adoptionGraceMs({ leaseMs: 800, heartbeatMs: 200, refreshMs: 50 })).toBe(800);
  });
});
