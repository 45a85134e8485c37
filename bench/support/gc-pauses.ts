import { PerformanceObserver, constants } from 'node:perf_hooks';
import { GCProfiler, getHeapStatistics } from 'node:v8';

/**
 * The main thread's garbage-collection pauses between `enable()` and `disable()`, from perf_hooks' 'gc' entries
 * (each entry's duration is the pause's wall time, helper threads' waits included). Forced collections (`gc()`, the
 * soak's readings) are left out: the product never asks for one.
 * Also the bytes the heap took meanwhile (`allocatedBytes`): what drives the number of scavenges, and unlike their
 * wall time the same at any load.
 */
export function gcPauses() {
  const scavenges: number[] = [];
  const full: number[] = [];
  const allocated = allocationCounter();
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const detail = (entry as unknown as { detail?: { kind: number; flags: number } }).detail;
      if (!detail || detail.flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) continue;
      if (detail.kind === constants.NODE_PERFORMANCE_GC_MINOR) scavenges.push(entry.duration);
      else if (detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) full.push(entry.duration);
    }
  });
  return {
    enable: () => (observer.observe({ entryTypes: ['gc'] }), allocated.enable()),
    disable: () => (observer.disconnect(), allocated.disable()),
    summary: () => ({ scavenges: describe(scavenges), full: describe(full), allocatedBytes: allocated.bytes() }),
  };
}

/**
 * Bytes allocated on the V8 heap while enabled: the growth of the used heap between collections, summed (V8's
 * GCProfiler gives the used size before and after each). Objects allocated and freed by the same collection count;
 * what a collection frees does not count against the next.
 */
function allocationCounter() {
  let total = 0;
  let profiler: GCProfiler | undefined;
  let usedAtStart = 0;
  return {
    enable() {
      usedAtStart = getHeapStatistics().used_heap_size;
      profiler = new GCProfiler();
      profiler.start();
    },
    disable() {
      const collections = profiler?.stop()?.statistics ?? [];
      profiler = undefined;
      let used = usedAtStart;
      for (const collection of collections) {
        total += Math.max(0, collection.beforeGC.heapStatistics.usedHeapSize - used);
        used = collection.afterGC.heapStatistics.usedHeapSize;
      }
      total += Math.max(0, getHeapStatistics().used_heap_size - used);
    },
    bytes: () => total,
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
