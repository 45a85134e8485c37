/**
 * The run's clock (budgets.ts `runTimeSpentMs`, decision 055): from its first approval, less the time it could only
 * wait for people. As properties over any waits and step spans, and as the cases a person meets.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runClockAt, runTimeSpentMs, type RunClockFacts, type TimeSpan } from '../../src/agent/model/budgets.ts';

const T0 = Date.parse('2026-11-28T04:00:00Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000);
const span = (from: number, to: number | null): TimeSpan => ({ from: at(from), to: to === null ? null : at(to) });
const spent = (start: number, now: number, facts: Partial<RunClockFacts>) => runTimeSpentMs(at(start), at(now), { waits: [], working: [], ...facts }) / 1000;

/** Spans within the first 1000 s, some still open, some from before the clock's start. */
const spanArb = fc
  .tuple(fc.integer({ min: -100, max: 1000 }), fc.integer({ min: 0, max: 600 }), fc.boolean())
  .map(([from, length, open]) => span(from, open ? null : from + length));
const factsArb = fc.record({ waits: fc.array(spanArb, { maxLength: 8 }), working: fc.array(spanArb, { maxLength: 8 }) });
const timesArb = fc.tuple(fc.integer({ min: 0, max: 500 }), fc.integer({ min: -50, max: 1200 }), fc.integer({ min: 0, max: 300 }));

describe('the run clock, as properties', () => {
  it('is never negative nor more than the wall time since its start', () => {
    fc.assert(
      fc.property(factsArb, timesArb, (facts, [start, now]) => {
        const ms = runTimeSpentMs(at(start), at(now), facts);
        expect(ms).toBeGreaterThanOrEqual(0);
        expect(ms).toBeLessThanOrEqual(Math.max(0, (now - start) * 1000));
      }),
    );
  });

  it('never goes back: later, at least as much time is spent', () => {
    fc.assert(
      fc.property(factsArb, timesArb, (facts, [start, now, later]) => {
        expect(runTimeSpentMs(at(start), at(now + later), facts)).toBeGreaterThanOrEqual(runTimeSpentMs(at(start), at(now), facts));
      }),
    );
  });

  it('equals the wall time when nobody was waited for', () => {
    fc.assert(
      fc.property(factsArb, timesArb, ({ working }, [start, now]) => {
        expect(runTimeSpentMs(at(start), at(now), { waits: [], working })).toBe(Math.max(0, (now - start) * 1000));
      }),
    );
  });

  it('counts waits open together once: a wait repeated, or inside others, changes nothing', () => {
    fc.assert(
      fc.property(factsArb, timesArb, fc.nat(), (facts, [start, now], pick) => {
        const before = runTimeSpentMs(at(start), at(now), facts);
        const again = facts.waits.length ? [facts.waits[pick % facts.waits.length]!] : [];
        expect(runTimeSpentMs(at(start), at(now), { ...facts, waits: [...facts.waits, ...again, ...facts.waits] })).toBe(before);
      }),
    );
  });

  it("a wait while the run's own steps run costs nothing: the time counts", () => {
    fc.assert(
      fc.property(factsArb, timesArb, (facts, [start, now]) => {
        expect(runTimeSpentMs(at(start), at(now), { waits: facts.waits, working: [...facts.working, ...facts.waits] })).toBe(Math.max(0, (now - start) * 1000));
      }),
    );
  });

  it('the clock it gives counts from a point where the wall time since is the time spent', () => {
    fc.assert(
      fc.property(factsArb, timesArb, (facts, [start, now]) => {
        const clock = runClockAt(at(start), at(now), facts);
        expect(clock.getTime()).toBeGreaterThanOrEqual(at(start).getTime());
        if (now > start) expect(at(now).getTime() - clock.getTime()).toBe(runTimeSpentMs(at(start), at(now), facts));
      }),
    );
  });
});

describe('the run clock, as a person meets it', () => {
  it('an hour waiting on an escalation, nothing else running, is not spent; the minutes around it are', () => {
    // Approved at 0, a step runs 0–60 and fails; the escalation waits 60–3660; Retry runs 3660–3720.
    const facts = { waits: [span(60, 3660)], working: [span(0, 60), span(3660, 3720)] };
    expect(spent(0, 3720, facts)).toBe(120);
  });

  it('a wait still open stops the clock until it is answered', () => {
    const facts = { waits: [span(100, null)], working: [span(0, 100)] };
    expect(spent(0, 100, facts)).toBe(100);
    expect(spent(0, 5000, facts)).toBe(100);
  });

  it('while another step runs beside a wait, the time counts; once only waits are left, it stops', () => {
    // s1 escalated at 10 (answered at 500); s2 runs beside it 5–200; from 200 the run can only wait.
    const facts = { waits: [span(10, 500)], working: [span(0, 10), span(5, 200)] };
    expect(spent(0, 500, facts)).toBe(200);
  });

  it('two waits open together count once', () => {
    const facts = { waits: [span(10, 300), span(100, 400)], working: [span(0, 10)] };
    expect(spent(0, 500, facts)).toBe(10 + 100);
  });

  it('waits before the first approval are before the clock: they change nothing', () => {
    expect(spent(1000, 1100, { waits: [span(0, 900)] })).toBe(100);
    expect(spent(1000, 1100, { waits: [span(0, 1050)] })).toBe(50);
  });
});
