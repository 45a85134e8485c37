/** Which answers each escalation kind offers, and which failures no new plan can fix: tables over the pure rules. */
import { describe, expect, it } from 'vitest';
import { answerList, answerOf, escalationAnswers, isOffered, type AnswerFacts } from '../../src/agent/execution/escalation-offer.ts';
import { unfixableFailure, unfixableWords } from '../../src/agent/execution/unfixable-failures.ts';
import { REPO_NOT_ALLOWED } from '../../src/agent/model/repository-allow-list.ts';

const facts = (overrides: Partial<AnswerFacts>): AnswerFacts => ({ kind: 'step-failed', hasStep: true, canReplan: true, unfixable: false, ...overrides });

describe('escalation answers by kind', () => {
  it.each([
    ['a failed step', facts({}), ['retry', 'skip', 'replan', 'abort']],
    ['a failed step, no model or no budget for a new plan', facts({ canReplan: false }), ['retry', 'skip', 'abort']],
    ['a failed step no new plan can fix', facts({ unfixable: true }), ['retry', 'skip', 'abort']],
    ['a failed check', facts({ kind: 'evaluation-failed' }), ['retry', 'skip', 'replan', 'abort']],
    ['an uncertain change', facts({ kind: 'uncertain-side-effect' }), ['retry', 'skip', 'replan', 'abort']],
    ['an uncertain change, no model', facts({ kind: 'uncertain-side-effect', canReplan: false }), ['retry', 'skip', 'abort']],
    ['a low-confidence plan', facts({ kind: 'low-confidence', hasStep: false }), ['approve', 'modify', 'reject']],
    ['a low-confidence plan, no model', facts({ kind: 'low-confidence', hasStep: false, canReplan: false }), ['approve', 'modify', 'reject']],
    ['a failed replan of a failed step still there', facts({ kind: 'replan-failed' }), ['retry', 'skip', 'replan', 'abort']],
    ['a failed replan of a failed step, budget spent', facts({ kind: 'replan-failed', canReplan: false }), ['retry', 'skip', 'abort']],
    ['a failed replan of the whole run', facts({ kind: 'replan-failed', hasStep: false }), ['replan', 'abort']],
    ['a failed replan of the whole run, budget spent', facts({ kind: 'replan-failed', hasStep: false, canReplan: false }), ['abort']],
    ['an unapproved version', facts({ kind: 'not-approved', hasStep: false }), ['replan', 'abort']],
    ['an unapproved version, no model', facts({ kind: 'not-approved', hasStep: false, canReplan: false }), ['abort']],
    ['a refused rollback step (it only informs)', facts({ kind: 'not-approved' }), []],
    ['a limit without a step', facts({ kind: 'budget', hasStep: false }), ['replan', 'abort']],
  ] as const)('%s', (_name, input, answers) => {
    expect(escalationAnswers(input)).toEqual(answers);
  });

  it('a click from a message posted before answers had names counts as the answer that acts as it, and no other', () => {
    expect(isOffered(['try-again', 'abort'], 'retry')).toBe(false);
    expect(isOffered(['try-again', 'abort'], 'skip')).toBe(false);
    // A failed replan's Try again, posted before it offered Replan, asks for a new plan where one can be made.
    expect(isOffered(['replan', 'abort'], 'try-again')).toBe(true);
    expect(isOffered(['retry', 'skip', 'abort'], 'try-again')).toBe(false);
    expect(isOffered(['approve', 'modify', 'reject'], 'skip')).toBe(true);
    expect(isOffered(['approve', 'modify', 'reject'], 'retry')).toBe(false);
    expect(isOffered(['retry', 'skip', 'abort'], 'replan')).toBe(false);
  });

  it('a stored resolution reads as the answer that was given', () => {
    expect(answerOf({ kind: 'low-confidence', stepId: null }, 'skip')).toBe('approve');
    expect(answerOf({ kind: 'low-confidence', stepId: null }, 'abort')).toBe('reject');
    expect(answerOf({ kind: 'replan-failed', stepId: null }, 'retry')).toBe('try-again');
    expect(answerOf({ kind: 'replan-failed', stepId: 's1' }, 'retry')).toBe('retry');
    expect(answerOf({ kind: 'step-failed', stepId: 's1' }, 'retry')).toBe('retry');
    expect(answerList(['retry', 'skip', 'abort'])).toBe('Retry, Skip or Abort');
    expect(answerList(['abort'])).toBe('Abort');
  });
});

describe('failures no new plan can fix', () => {
  it.each([
    ['host-not-allowed', 'host-not-allowed'],
    [REPO_NOT_ALLOWED, 'repository-not-allowed'],
    ['not-configured', 'missing-credential'],
    ['unauthorized', 'missing-credential'],
    ['app-unauthorized', 'missing-credential'],
    ['app-not-installed', 'missing-credential'],
  ] as const)('%s is %s', (code, failure) => {
    expect(unfixableFailure({ code })).toBe(failure);
    expect(unfixableWords(failure)).not.toMatch(/TANDEM_|GITHUB_/);
  });

  it.each(['not-found', 'http-502', 'network', 'evaluation-failed', 'toString', undefined])('%s may be fixed by a new plan', (code) => {
    expect(unfixableFailure(code === undefined ? {} : { code })).toBeNull();
  });

  it('no error is no failure', () => {
    expect(unfixableFailure(null)).toBeNull();
  });
});
