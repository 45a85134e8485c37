import { type Text, words } from '../../text/text.ts';

/** What is wrong with a plan: a stable code, where (`s3.args.repo`, `steps`, `plan`), and what to fix. */
export interface PlanProblem {
  code: PlanProblemCode;
  at: string;
  message: Text;
}

export type PlanProblemCode =
  | 'invalid-shape'
  | 'empty-plan'
  | 'too-many-steps'
  | 'too-many-questions'
  | 'duplicate-id'
  | 'id-already-ran'
  | 'depends-on-rollback'
  | 'unknown-step'
  | 'depends-on-later'
  | 'cycle'
  | 'unknown-tool'
  | 'invalid-args'
  | 'reference-in-text'
  | 'malformed-reference'
  | 'reference-not-ready'
  | 'repo-not-allowed';

export const problem = (code: PlanProblemCode, at: string, message: Text): PlanProblem => ({ code, at, message });

/** One problem as one line of words: where, then what. */
export const problemWords = (p: PlanProblem): Text => words`${p.at}: ${p.message}`;
