/** The run's true outcome, from what happened to its steps and checks (issue 29, part 1). */
import { describe, expect, it } from 'vitest';
import { listed, progressPhase, runOutcome, type OutcomeStep } from '../../src/agent/model/run-outcome.ts';

const step = (title: string, status: OutcomeStep['status'], more: Partial<OutcomeStep> = {}): OutcomeStep => ({ title, kind: 'forward', status, ...more });

describe('runOutcome', () => {
  it('is "Succeeded" only when every step succeeded and every check passed', () => {
    expect(runOutcome('succeeded', [step('Check', 'succeeded'), step('Note', 'succeeded')])).toMatchObject({ kind: 'succeeded', headline: 'Succeeded' });
  });

  it('a run the executor finished with a step a person skipped finished with 1 skipped, not succeeded', () => {
    const verdict = runOutcome('succeeded', [step('Check that /missing answers with HTTP 200', 'skipped')]);
    expect(verdict.kind).toBe('finished-with-problems');
    expect(verdict.headline).toBe('Finished with 1 skipped');
    expect(verdict.skipped).toEqual(['Check that /missing answers with HTTP 200']);
  });

  it('a step a person skipped while it was uncertain is still uncertain, in every outcome', () => {
    const merge = step('Merge', 'skipped', { skippedUncertain: true });
    expect(runOutcome('succeeded', [merge])).toMatchObject({
      headline: 'Finished with 1 uncertain',
      skipped: [],
      uncertain: ['Merge'],
      skippedUncertain: ['Merge'],
    });
    expect(runOutcome('aborted', [merge, step('Check', 'failed')]).headline).toBe('Aborted — nothing was rolled back; uncertain: Merge');
    expect(runOutcome('cancelled', [merge]).headline).toBe('Cancelled — uncertain: Merge may or may not have taken effect');
  });

  it('a change whose failed check a person skipped is done with its check skipped, not "skipped" and not a success', () => {
    const verdict = runOutcome('succeeded', [step('Comment', 'succeeded', { madeChange: true, checkSkipped: true })]);
    expect(verdict).toMatchObject({ kind: 'finished-with-problems', headline: 'Finished with 1 check skipped', skipped: [], checkSkipped: ['Comment'] });
  });

  it('a result whose check could not be made (the evaluator model down) is not a success', () => {
    const verdict = runOutcome('succeeded', [step('Check', 'succeeded', { unchecked: true })]);
    expect(verdict).toMatchObject({ kind: 'finished-with-problems', headline: 'Finished with 1 not checked', unchecked: ['Check'] });
  });

  it('counts skipped, failed and uncertain steps together', () => {
    const verdict = runOutcome('succeeded', [step('A', 'skipped'), step('B', 'skipped'), step('C', 'failed'), step('D', 'succeeded')]);
    expect(verdict.headline).toBe('Finished with 2 skipped, 1 failed');
  });

  it('a cancelled run names what may or may not have happened', () => {
    const verdict = runOutcome('cancelled', [step('Deploy api', 'uncertain', { madeChange: false }), step('Notify', 'cancelled')]);
    expect(verdict).toMatchObject({ kind: 'cancelled', uncertain: ['Deploy api'] });
    expect(verdict.headline).toBe('Cancelled — uncertain: Deploy api may or may not have taken effect');
    expect(runOutcome('cancelled', [step('Notify', 'cancelled')]).headline).toBe('Cancelled');
  });

  it('an aborted run says what was rolled back and what is still in place', () => {
    const verdict = runOutcome('aborted', [
      step('Open issue', 'succeeded', { madeChange: true, key: '1/s1' }),
      step('Comment', 'succeeded', { madeChange: true, key: '1/s2' }),
      step('Merge', 'failed', { madeChange: false, key: '1/s3' }),
      { title: 'Close the issue', kind: 'rollback', status: 'succeeded', undoes: '1/s1' },
    ]);
    expect(verdict.rolledBack).toEqual(['Close the issue']);
    expect(verdict.stillInPlace).toEqual(['Comment']);
    expect(verdict.headline).toBe('Aborted — rolled back Close the issue; still in place: Comment');
  });

  it('an abort with nothing to undo says so', () => {
    expect(runOutcome('aborted', [step('Check', 'failed')]).headline).toBe('Aborted — nothing was rolled back');
  });

  it('a failed run names the step that failed', () => {
    expect(runOutcome('failed', [step('Check', 'failed'), step('Note', 'skipped')]).headline).toBe('Failed — Check failed');
  });

  it('lists a few titles and counts the rest', () => {
    expect(listed(['a', 'b', 'c', 'd', 'e'])).toBe('a, b, c and 2 more');
    expect(listed(['a', 'b'])).toBe('a and b');
  });
});

describe('progressPhase', () => {
  it('is checking, not running, once every step has ended while the run still executes', () => {
    expect(progressPhase('executing', [step('A', 'succeeded'), step('B', 'succeeded')])).toEqual({ phase: 'checking' });
    expect(progressPhase('executing', [step('A', 'succeeded'), step('B', 'running')])).toEqual({ phase: 'running' });
  });

  it('says what a paused run waits for: a Confirm, an answer or a decision', () => {
    expect(progressPhase('paused', [{ ...step('A', 'waiting'), waitingFor: 'confirm' }])).toEqual({ phase: 'waiting', for: 'confirm' });
    expect(progressPhase('paused', [{ ...step('A', 'waiting'), waitingFor: 'answer' }])).toEqual({ phase: 'waiting', for: 'answer' });
    expect(progressPhase('paused', [step('A', 'failed')])).toEqual({ phase: 'waiting', for: 'decision' });
  });
});
