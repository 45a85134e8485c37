-- A plan nobody approved within TANDEM_APPROVAL_TTL_S ends its run as `expired`, no longer as `rejected` (decision 035,
-- amended in session 17): /metrics, `tandem runs` and a pruned run then tell it from a rejected plan. Runs ended before
-- are moved here. Such a run's summary said `expired: true`; a run pruned since lost its summary, but a Reject always
-- stored the rejection with the run's end (plan-decisions.ts, escalation-resolution.ts), so a rejected run with no
-- rejection of its own expired.
UPDATE "runs" SET "status" = 'expired'
WHERE "status" = 'rejected'
  AND (("summary" ->> 'expired') = 'true'
    OR NOT EXISTS (SELECT 1 FROM "approvals" WHERE "approvals"."run_id" = "runs"."id" AND "approvals"."decision" = 'rejected'));
