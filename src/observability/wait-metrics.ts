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
 * When each kind of wait is reminded about: every kind once, after TANDEM_REMIND_AFTER_S. The alert
 * "a wait older than its reminder" compares against these.
 */
export function recordRemindAfter(metrics: Metrics, housekeeping: Config['housekeeping']): void {
  for (const kind of ['approval', 'question', 'escalation', 'confirm']) metrics.waitRemindAfter.set({ kind }, housekeeping.remindAfterS);
}
