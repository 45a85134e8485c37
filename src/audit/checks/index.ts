/** Every invariant `tandem audit` checks, one per file in this folder; add a check by adding it here. */
import type { AuditCheck } from '../run-facts.ts';
import { approvalNotAllowed } from './approval-not-allowed.ts';
import { autoRunNotPermitted } from './auto-run-not-permitted.ts';
import { decisionNotPermitted } from './decision-not-permitted.ts';
import { contentChangedAfterApproval } from './content-changed-after-approval.ts';
import { destructiveApprovedByRequester } from './destructive-approved-by-requester.ts';
import { lateBoundTargetConfirmed } from './late-bound-target-confirmed.ts';
import { repositoryOutsideAllowList } from './repository-outside-allow-list.ts';
import { stepRanWithoutApproval } from './step-ran-without-approval.ts';

export const AUDIT_CHECKS: readonly AuditCheck[] = [
  stepRanWithoutApproval,
  approvalNotAllowed,
  destructiveApprovedByRequester,
  lateBoundTargetConfirmed,
  contentChangedAfterApproval,
  repositoryOutsideAllowList,
  decisionNotPermitted,
  autoRunNotPermitted,
];
