import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/**
 * Event-loop delay: how late a timer runs after it was due, sampled every `resolutionMs`.
 *
 * Not `monitorEventLoopDelay`: on Node 20 that histogram records the interval between its own timer's ticks,
 * which is the resolution plus the delay (an idle process reads p50 10.1 ms at resolution 10 and 20.2 ms at
 * resolution 20), so every soak figure before session 18 was the delay plus 10 ms. Here each tick records its
 * lateness itself, so an idle loop reads about 0 (libuv's timers keep whole milliseconds: good to about 1 ms).
 *
 * Each tick also reads how long the main thread waited for a core since the last tick (the scheduler's
 * run-queue wait, /proc/self/task/<pid>/schedstat, Linux): a timer late because the machine ran something else
 * is the machine's, late while the thread was on a core is this process's own work. `own` is the lateness
 * less that wait.
 */
export interface LoopDelaySummary {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** Ticks recorded: one per resolution while the loop is free, one per stall while it is held. */
  count: number;
  /** The same percentiles with each tick's wait for a core taken off; absent where schedstat is not readable. */
  own?: { p50: number; p90: number; p99: number; max: number };
  /**
   * The main thread's CPU between two ticks beyond the timer's period: how long its own work held the loop, counted
   * in CPU (at any load; it leaves out time the thread slept while late, e.g. a GC waiting for its helper threads).
   */
  cpu?: { p50: number; p90: number; p99: number; max: number };
}

/** The main thread's time on a core and waiting for one since it started, in ns (schedstat), or undefined off Linux. */
function schedstat(): { runNs: number; waitNs: number } | undefined {
  try {
    const [runNs, waitNs] = readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ').map(Number);
    return { runNs: runNs!, waitNs: waitNs! };
  } catch {
    return undefined;
  }
}

function percentiles(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
  return { p50: at(50), p90: at(90), p99: at(99), max: sorted.at(-1) ?? 0 };
}

/** This process's loop delay between `enable()` and `disable()`. */
export function loopDelay(resolutionMs = 10) {
  const lateness: number[] = [];
  const own: number[] = [];
  const cpu: number[] = [];
  /** Ticks whose own delay was over 15 ms, as [start, end] of the interval in µs of the monotonic clock (a CPU profile's). */
  const longTicks: [number, number][] = [];
  let lastTickUs = 0;
  let timer: NodeJS.Timeout | undefined;
  let due = 0;
  let last: ReturnType<typeof schedstat>;
  const tick = () => {
    const now = performance.now();
    const late = Math.max(0, now - due);
    const stat = schedstat();
    lateness.push(late);
    const nowUs = Number(process.hrtime.bigint() / 1000n);
    if (stat && last) {
      own.push(Math.max(0, late - (stat.waitNs - last.waitNs) / 1e6));
      cpu.push(Math.max(0, (stat.runNs - last.runNs) / 1e6 - resolutionMs));
      if (own.at(-1)! > 15) longTicks.push([lastTickUs, nowUs]);
    }
    last = stat;
    lastTickUs = nowUs;
    due = now + resolutionMs;
    timer = setTimeout(tick, resolutionMs);
  };
  return {
    enable() {
      last = schedstat();
      lastTickUs = Number(process.hrtime.bigint() / 1000n);
      due = performance.now() + resolutionMs;
      timer = setTimeout(tick, resolutionMs);
    },
    disable: () => clearTimeout(timer),
    /** For a profile: the intervals in which this process's own work held the loop for over 15 ms. */
    longTicks: () => longTicks,
    summary: (): LoopDelaySummary => ({
      ...percentiles(lateness),
      count: lateness.length,
      ...(own.length ? { own: percentiles(own), cpu: percentiles(cpu) } : {}),
    }),
  };
}

/** The instrument's own check: this process's loop delay while it does nothing for `ms`. Reads about 0. */
export async function idleLoopDelay(ms = 1000, resolutionMs = 10): Promise<LoopDelaySummary> {
  const delay = loopDelay(resolutionMs);
  delay.enable();
  await new Promise((resolve) => setTimeout(resolve, ms));
  delay.disable();
  return delay.summary();
}

/**
 * A second process that does nothing but measure its own loop delay, at its parent's niceness, until `stop()`:
 * what the machine gives any process meanwhile, beside which a bench's own delay is read.
 */
export function noOpProcessDelay(resolutionMs = 10) {
  const child = spawn(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, LOOP_DELAY_PROBE_MS: String(resolutionMs) },
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  return {
    /** Resolves once the probe is measuring. */
    ready,
    async stop(): Promise<LoopDelaySummary> {
      child.stdin.end();
      await exited;
      return JSON.parse(out.slice(out.indexOf('{'))) as LoopDelaySummary;
    },
  };
}

/** "p50 0.1, p90 0.4, p99 3.2, max 18 ms": a summary as the benches print it. */
export function describeDelay(summary: Pick<LoopDelaySummary, 'p50' | 'p90' | 'p99' | 'max'>): string {
  return `p50 ${summary.p50.toFixed(1)}, p90 ${summary.p90.toFixed(1)}, p99 ${summary.p99.toFixed(1)}, max ${summary.max.toFixed(0)} ms`;
}

// Run as noOpProcessDelay's child: measure until stdin ends, then print the summary.
if (process.env.LOOP_DELAY_PROBE_MS && process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const delay = loopDelay(Number(process.env.LOOP_DELAY_PROBE_MS));
  delay.enable();
  process.stdout.write('measuring ');
  process.stdin.resume();
  process.stdin.once('end', () => {
    delay.disable();
    process.stdout.write(JSON.stringify(delay.summary()));
  });
}
