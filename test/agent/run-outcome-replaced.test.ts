/** The outcome across plan versions: a failure a replan replaced is still part of the run's true outcome. */
import { describe, expect, it } from 'vitest';
import { replacedFailures, runOutcome, type OutcomeStep } from '../../src/agent/model/run-outcome.ts';

const step = (title: string, status: OutcomeStep['status'], more: Partial<OutcomeStep> = {}): OutcomeStep => ({ title, kind: 'forward', status, ...more });
const before = (title: string, status: OutcomeStep['status']) => step(title, status, { replaced: true });

describe('runOutcome across plan versions', () => {
  it('a failure replanned around is not "Succeeded", however well the new plan went', () => {
    const verdict = runOutcome('succeeded', [before('Deploy web', 'failed'), step('Roll web back', 'succeeded', { madeChange: true })]);
    expect(verdict).toMatchObject({
      kind: 'finished-with-problems',
      headline: 'Finished after replanning — Deploy web failed; every step of the new plan succeeded',
      failed: ['Deploy web'],
      stillInPlace: [],
    });
  });

  it('says what the new plan left undone, and an uncertain step of the old plan', () => {
    const verdict = runOutcome('succeeded', [before('Deploy web', 'uncertain'), step('Check web', 'skipped')]);
    expect(verdict.headline).toBe('Finished after replanning — Deploy web may or may not have taken effect; the new plan finished with 1 skipped');
    expect(verdict.uncertain).toEqual(['Deploy web']);
  });

  it('a run that failed again, or was cancelled, names the earlier failure among its failures', () => {
    expect(runOutcome('failed', [before('Deploy web', 'failed'), step('Roll web back', 'failed')]).headline).toBe(
      'Failed — Deploy web and Roll web back failed',
    );
    expect(runOutcome('cancelled', [before('Deploy web', 'failed')]).failed).toEqual(['Deploy web']);
  });

  it('a run not yet ended says nothing yet, and the old failure does not change what the run is doing', () => {
    expect(runOutcome('executing', [before('Deploy web', 'failed'), step('Roll web back', 'running')])).toMatchObject({ kind: 'in-progress', headline: '' });
  });

  it('replacedFailures keeps the failed and uncertain forward steps of earlier versions only', () => {
    const records = [
      { kind: 'forward' as const, planVersion: 1, status: 'succeeded' as const, title: 'Open issue' },
      { kind: 'forward' as const, planVersion: 1, status: 'failed' as const, title: 'Deploy' },
      { kind: 'forward' as const, planVersion: 1, status: 'skipped' as const, title: 'Check after deploy' },
      { kind: 'forward' as const, planVersion: 1, status: 'uncertain' as const, title: 'Notify' },
      { kind: 'rollback' as const, planVersion: 1, status: 'failed' as const, title: 'Undo' },
      { kind: 'forward' as const, planVersion: 2, status: 'failed' as const, title: 'Roll back' },
    ];
    expect(replacedFailures(records, 2)).toEqual([
      { title: 'Deploy', kind: 'forward', status: 'failed', replaced: true },
      { title: 'Notify', kind: 'forward', status: 'uncertain', replaced: true },
    ]);
    expect(replacedFailures(records, 1)).toEqual([]);
  });
});
