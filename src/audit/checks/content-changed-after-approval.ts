/**
 * A plan version's stored content no longer has the digest an approval of it recorded: the row was
 * changed after it was approved. Approvals stored before digests were recorded bind to the version
 * number only; `tandem show` says "approved before digests" for them and this check passes them by.
 */
import { shortDigest } from '../../agent/model/plan/plan-digest.ts';
import { type AuditCheck, violation } from '../run-facts.ts';

export const contentChangedAfterApproval: AuditCheck = {
  name: 'content-changed-after-approval',
  check(facts) {
    return facts.versions.flatMap((version) => {
      const now = facts.digests.get(version.version);
      if (now === undefined) return [];
      const approvedAs = new Set(
        facts.approvals
          .filter((a) => a.planVersion === version.version && a.decision === 'approved' && a.digest !== null && a.digest !== now)
          .map((a) => a.digest!),
      );
      return [...approvedAs].map((digest) =>
        violation(
          this.name,
          facts.run,
          { planVersion: version.version },
          `v${version.version} was approved with digest ${shortDigest(digest)}, but its stored content now has digest ${shortDigest(now)}: the row changed after approval`,
        ),
      );
    });
  },
};
