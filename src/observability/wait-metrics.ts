import type { Config } from '../config/config.ts';
import type { OpenWaits } from '../store/index.ts';
import type { Metrics } from './metrics.ts';

/** The housekeeping minute's count of open waits and active runs, as gauges (a status no run is in disappears). */
export function recordOpenWaits(metrics: Metrics, found: OpenWaits): void {
  for (const [kind, wait] of Object.entries(found.waits)) {
    metrics.waitsOpen.set({ kind }, wait.open);
    metrics.waitOldest.set({ kind }, wait.oldestSeconds);
  }
  metrics.runsActive.reset();
  for (const [status, count] of Object.entries(found.activeRuns)) metrics.runsActive.set({ status }, count);
}

/**
 * When each kind of wait is reminded about: approvals after TANDEM_APPROVAL_REMIND_MIN, escalations and
 * Confirms re-pinged every TANDEM_ESCALATION_REPING_MIN. Questions are never re-pinged; the approval
 * reminder stands in for them. The alert "a wait older than its reminder" compares against these.
 */
export function recordRemindAfter(metrics: Metrics, housekeeping: Config['housekeeping']): void {
  const approval = housekeeping.approvalRemindMin * 60;
  const reping = housekeeping.escalationRepingMin * 60;
  for (const [kind, seconds] of Object.entries({ approval, question: approval, escalation: reping, confirm: reping }))
    metrics.waitRemindAfter.set({ kind }, seconds);
}
