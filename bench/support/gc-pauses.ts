import { PerformanceObserver, constants } from 'node:perf_hooks';

/**
 * The main thread's garbage-collection pauses between `enable()` and `disable()`, from perf_hooks' 'gc' entries
 * (each entry's duration is the pause's wall time, helper threads' waits included). Forced collections (`gc()`, the
 * soak's readings) are left out: the product never asks for one.
 */
export function gcPauses() {
  const scavenges: number[] = [];
  const full: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const detail = (entry as unknown as { detail?: { kind: number; flags: number } }).detail;
      if (!detail || detail.flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) continue;
      if (detail.kind === constants.NODE_PERFORMANCE_GC_MINOR) scavenges.push(entry.duration);
      else if (detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) full.push(entry.duration);
    }
  });
  return {
    enable: () => observer.observe({ entryTypes: ['gc'] }),
    disable: () => observer.disconnect(),
    summary: () => ({ scavenges: describe(scavenges), full: describe(full) }),
  };
}

/** "819 (p50 3.1, p99 41, max 85 ms; 2.4 s in all)". */
function describe(pauses: number[]): { count: number; totalMs: number; text: string } {
  const sorted = [...pauses].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
  const totalMs = sorted.reduce((sum, pause) => sum + pause, 0);
  return {
    count: sorted.length,
    totalMs,
    text: `${sorted.length} (p50 ${at(50).toFixed(1)}, p99 ${at(99).toFixed(0)}, max ${(sorted.at(-1) ?? 0).toFixed(0)} ms; ${(totalMs / 1000).toFixed(1)} s in all)`,
  };
}
