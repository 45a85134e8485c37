import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';
import { Gauge, type Registry } from 'prom-client';

/** The timer's period: one tick every 10 ms, as prom-client's own (its `eventLoopMonitoringPrecision`). */
const RESOLUTION_MS = 10;
const STATS = ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99'] as const;

/** prom-client's lag gauges that read the timer's period as delay; `registerLoopLag` replaces them. */
export const LOOP_LAG_GAUGES = STATS.map((stat) => `nodejs_eventloop_lag_${stat}_seconds`);

/**
 * `<prefix>nodejs_eventloop_lag_{min,max,mean,stddev,p50,p90,p99}_seconds`: how late a 10 ms timer ran, since the
 * last scrape. An idle loop reads about 0.
 *
 * Not prom-client's figures under the same names: they come from `monitorEventLoopDelay`, which on Node 20 records
 * the interval between its timer's ticks (the resolution plus the delay), so an idle bot read p50 0.0101 s and every
 * figure was 10 ms high. Here each tick records its own lateness, as `bench/support/loop-delay.ts` does for the soak.
 * One timer for the process, however many registries read it (a test worker makes hundreds): unref'd, it never keeps
 * the process alive.
 */
export function registerLoopLag(registry: Registry, prefix: string): void {
  const histogram = lateTicks();
  const read: Record<(typeof STATS)[number], () => number> = {
    min: () => histogram.min,
    max: () => histogram.max,
    mean: () => histogram.mean,
    stddev: () => histogram.stddev,
    p50: () => histogram.percentile(50),
    p90: () => histogram.percentile(90),
    p99: () => histogram.percentile(99),
  };
  // The first gauge's collect sets them all from the same ticks, then starts the next scrape's window.
  const collect = () => {
    // Before a first tick the histogram is empty (its min reads 2^63): report 0 rather than a huge lag.
    const empty = histogram.count === 0;
    for (const { stat, gauge } of gauges) gauge.set(empty ? 0 : read[stat]() / 1e9);
    histogram.reset();
  };
  const gauges = STATS.map((stat, index) => ({
    stat,
    gauge: new Gauge({
      name: `${prefix}nodejs_eventloop_lag_${stat}_seconds`,
      help: `${HELP[stat]} event loop delay since the last scrape: how late a ${RESOLUTION_MS} ms timer ran, in seconds`,
      registers: [registry],
      ...(index === 0 ? { collect } : {}),
    }),
  }));
}

const HELP: Record<(typeof STATS)[number], string> = {
  min: 'The minimum',
  max: 'The maximum',
  mean: 'The mean',
  stddev: 'The standard deviation of the',
  p50: 'The 50th percentile of the',
  p90: 'The 90th percentile of the',
  p99: 'The 99th percentile of the',
};

let ticks: RecordableHistogram | undefined;

/**
 * How late each tick of the process's one 10 ms timer ran. Started once: a timer per registry ran on for every
 * app a long-lived process ever made (a test worker making hundreds ran hundreds of timers).
 */
function lateTicks(): RecordableHistogram {
  if (ticks) return ticks;
  const histogram = createHistogram();
  let due = performance.now() + RESOLUTION_MS;
  const tick = () => {
    const now = performance.now();
    // The histogram keeps whole nanoseconds from 1 up: a tick on time is recorded as 1 ns.
    histogram.record(Math.max(1, Math.round((now - due) * 1e6)));
    due = now + RESOLUTION_MS;
    setTimeout(tick, RESOLUTION_MS).unref();
  };
  setTimeout(tick, RESOLUTION_MS).unref();
  ticks = histogram;
  return histogram;
}
