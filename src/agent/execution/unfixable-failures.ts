/**
 * A failure no new plan can fix: the deployment's configuration refuses it (a host Tandem may not reach,
 * a repository outside the allow-list, a missing or rejected credential). A replan would ask the same
 * thing again or give up on the request, so the supervisor hands such a failure to a person at once and
 * keeps the replan budget for failures a new plan can help with. Pure: it reads the step's error code.
 */
import type { StepErrorRecord } from '../ports/run-store.ts';

export type UnfixableFailure = 'host-not-allowed' | 'repository-not-allowed' | 'missing-credential';

/** Error codes the tools and the step runner give for each (the GitHub tools, http_check, the repository allow-list). */
const BY_CODE: Readonly<Record<string, UnfixableFailure>> = {
  'host-not-allowed': 'host-not-allowed',
  'repo-not-allowed': 'repository-not-allowed',
  'not-configured': 'missing-credential',
  unauthorized: 'missing-credential',
  'app-unauthorized': 'missing-credential',
  'app-not-installed': 'missing-credential',
};

/** Which unfixable failure this is, or null when a new plan might do better. */
export function unfixableFailure(error: Pick<StepErrorRecord, 'code'> | null | undefined): UnfixableFailure | null {
  const code = error?.code;
  return code !== undefined && Object.hasOwn(BY_CODE, code) ? BY_CODE[code]! : null;
}

/** What stops it, in words for the people in the thread (no setting names: they are the operator's). */
export function unfixableWords(failure: UnfixableFailure): string {
  switch (failure) {
    case 'host-not-allowed':
      return 'its address is not on the list of hosts Tandem may reach';
    case 'repository-not-allowed':
      return 'its repository is not one Tandem may work on';
    case 'missing-credential':
      return 'Tandem has no working GitHub credentials for it';
  }
}
