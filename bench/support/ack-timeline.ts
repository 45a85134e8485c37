/**
 * Where a burst's time goes inside the bot, in figures that do not depend on the machine's load: the order
 * of events from the first connection or request of a burst to its last ack, and the bot's own CPU time
 * between them. Events are read from Node's diagnostics channels and from a wrapper around the inbox.
 */
import diagnostics from 'node:diagnostics_channel';
import { openSync, readSync } from 'node:fs';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import type { SlackInbox } from '../../src/bot/ports.ts';

type Kind = 'connect' | 'start' | 'ack' | 'slack' | 'recordStart' | 'recordEnd' | 'done' | 'bolt';
interface Mark {
  kind: Kind;
  /** performance.now(). */
  at: number;
  /** The process's CPU time (all threads) in ms, read only where the figures need it (NaN otherwise). */
  cpu: number;
  /** The main thread's CPU time in ms, read at each ack and at a burst's first arrival (NaN otherwise). */
  thread: number;
}

const cpuNow = () => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};

/**
 * The main thread's own CPU time in ms (Linux: its scheduler statistics, read again over one open file, ~8 µs),
 * or NaN elsewhere. The process's figure adds V8's compiler and GC helper threads, which run beside the main
 * thread, not in front of the acks; this one is what the last ack waits for.
 */
const mainThreadCpu: () => number = (() => {
  let fd: number;
  try {
    fd = openSync('/proc/thread-self/schedstat', 'r');
  } catch {
    return () => Number.NaN;
  }
  const buffer = Buffer.alloc(64);
  return () => {
    const text = buffer.toString('latin1', 0, readSync(fd, buffer, 0, buffer.length, 0));
    return Number(text.slice(0, text.indexOf(' '))) / 1e6;
  };
})();

/** performance.now() in a V8 CPU profile's clock (the monotonic clock in µs), from one reading of both. */
const profileClockOffsetUs = Number(process.hrtime.bigint() / 1000n) - performance.now() * 1000;

export interface BurstTimeline {
  /** Wraps the inbox so its writes are marked (queued, committed) along with the `done` marks after the acks. */
  inbox(inner: SlackInbox): SlackInbox;
  /** Marks each request the inbox receiver hands to Bolt (its middleware and listeners: after-ack work for an event or a click). */
  boltDispatch(app: { processEvent(event: never): Promise<void> }): void;
  /** Requests stored and not yet marked handled: after-ack work still running. */
  handling(): number;
  /** What happened since the last call, summed up; starts a new burst. */
  take(): Record<string, number>;
  /** The next burst's number of requests: the clocks are read at its first arrival and at that many acks only. */
  expect(count: number): void;
}

export function burstTimeline(): BurstTimeline {
  let marks: Mark[] = [];
  let gcs: { at: number; ms: number; major: boolean }[] = [];
  /** Each request's CPU reading at its arrival, then its CPU from arrival to ack: the one pair of readings serves both figures. */
  const arrivedAtCpu = new WeakMap<object, number>();
  let cpuToAck: number[] = [];
  let stored = 0;
  let handled = 0;
  // The clocks are system calls (~11 µs for the CPU, ~8 µs for the main thread's, on this machine): 300 readings a
  // burst were ~3 ms of a 25-45 ms figure. So the burst's figures read them at its first arrival and at its
  // expected last ack only (`expect`), and each request's own CPU from arrival to ack (two readings a request)
  // only with BENCH_ACK_REQUEST_CPU=1.
  const perRequest = process.env.BENCH_ACK_REQUEST_CPU === '1';
  let expected = Number.POSITIVE_INFINITY;
  let acked = 0;
  const mark = (kind: Kind, cpu = Number.NaN, thread = Number.NaN) => marks.push({ kind, at: performance.now(), cpu, thread });
  let arrived = false;
  const arrival = (kind: 'connect' | 'start', response?: object) => {
    const first = !arrived;
    const cpu = first || perRequest ? cpuNow() : Number.NaN;
    if (response && perRequest) arrivedAtCpu.set(response, cpu);
    mark(kind, cpu, first ? mainThreadCpu() : Number.NaN);
    arrived = true;
  };
  diagnostics.subscribe('net.server.socket', () => arrival('connect'));
  diagnostics.subscribe('http.server.request.start', (message) => arrival('start', (message as { response: object }).response));
  diagnostics.subscribe('http.server.response.finish', (message) => {
    acked += 1;
    // Without an expected count (the warm-up), every ack reads the clocks, as before.
    const last = acked >= expected || expected === Number.POSITIVE_INFINITY;
    const cpu = last || perRequest ? cpuNow() : Number.NaN;
    const arrivedAt = arrivedAtCpu.get((message as { response: object }).response);
    if (arrivedAt !== undefined) cpuToAck.push(cpu - arrivedAt);
    mark('ack', cpu, last ? mainThreadCpu() : Number.NaN);
  });
  diagnostics.subscribe('undici:request:create', () => mark('slack'));
  diagnostics.subscribe('http.client.request.start', () => mark('slack'));
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      gcs.push({
        at: entry.startTime,
        ms: entry.duration,
        major: (entry as unknown as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR,
      });
  }).observe({ entryTypes: ['gc'] });
  return {
    inbox: (inner) => ({
      ...inner,
      async record(entry) {
        mark('recordStart');
        stored += 1;
        try {
          return await inner.record(entry);
        } finally {
          mark('recordEnd');
        }
      },
      async done(key) {
        mark('done');
        handled += 1;
        return inner.done(key);
      },
    }),
    handling: () => stored - handled,
    boltDispatch(app) {
      const dispatch = app.processEvent.bind(app);
      app.processEvent = (event: never) => (mark('bolt'), dispatch(event));
    },
    expect(count) {
      expected = count;
    },
    take() {
      const taken = { marks, gcs, cpuToAck };
      marks = [];
      gcs = [];
      cpuToAck = [];
      arrived = false;
      acked = 0;
      expected = Number.POSITIVE_INFINITY;
      return { ...requests(taken.marks, taken.cpuToAck), ...summary(taken.marks, taken.gcs) };
    },
  };
}

/** Every ack and Slack call since the last take, and each request's own CPU from its arrival to its ack (p99). */
function requests(marks: Mark[], cpuToAck: number[]): Record<string, number> {
  const acks = marks.filter((m) => m.kind === 'ack');
  const slack = marks.filter((m) => m.kind === 'slack');
  const lastAck = acks.at(-1)?.at ?? -Infinity;
  const sortedCpu = [...cpuToAck].sort((a, b) => a - b);
  return {
    acks: acks.length,
    ackSpreadMs: acks.length ? lastAck - acks[0]!.at : 0,
    slackCalls: slack.length,
    callsBeforeLastAck: slack.filter((m) => m.at < lastAck).length,
    // The latency a request would have had with a core to itself: what the bot did between its arrival and its ack.
    ...(sortedCpu.length ? { cpuToAckP99: sortedCpu[Math.min(sortedCpu.length - 1, Math.ceil(0.99 * sortedCpu.length) - 1)]! } : {}),
  };
}

function summary(marks: Mark[], gcs: { at: number; ms: number; major: boolean }[]): Record<string, number> {
  const of = (kind: Kind) => marks.filter((m) => m.kind === kind);
  const acks = of('ack');
  const arrivals = marks.filter((m) => m.kind === 'connect' || m.kind === 'start');
  if (acks.length === 0 || arrivals.length === 0) return {};
  const first = arrivals[0]!;
  const lastAck = acks.at(-1)!;
  // The last ack whose clocks were read: the burst's expected last (a stray ack after it is not).
  const clocked = acks.findLast((m) => !Number.isNaN(m.cpu)) ?? lastAck;
  const before = (kind: Kind) => of(kind).filter((m) => m.at <= lastAck.at).length;
  const starts = of('start');
  const firstAck = acks[0]!;
  const inWindow = gcs.filter((g) => g.at >= first.at && g.at <= lastAck.at);
  const recordEnds = of('recordEnd').filter((m) => m.at <= lastAck.at);
  return {
    newSockets: of('connect').length,
    // From the first byte the bot saw of the burst to its last ack: wall time, and the bot's CPU time within it.
    firstArrivalToLastAckMs: lastAck.at - first.at,
    botCpuFirstArrivalToLastAckMs: clocked.cpu - first.cpu,
    mainThreadCpuFirstArrivalToLastAckMs: clocked.thread - first.thread,
    requestStartSpreadMs: starts.length ? starts.at(-1)!.at - starts[0]!.at : 0,
    // Requests parsed after the first ack went out: the burst was not read in one go.
    startsAfterFirstAck: starts.filter((m) => m.at > firstAck.at).length,
    // Inbox writes that committed before the last ack, grouped by the turn they committed in (statements).
    inboxCommitsBeforeLastAck: recordEnds.filter((m, i) => i === 0 || m.at - recordEnds[i - 1]!.at > 0.5).length,
    // After-ack work started before the burst's last ack went out: Slack calls and inbox `done` marks.
    boltDispatchesBeforeLastAck: before('bolt'),
    slackCallsBeforeLastAck: before('slack'),
    doneMarksBeforeLastAck: before('done'),
    // The window in a CPU profile's clock (BENCH_BURST_PROF), to read what ran in it.
    windowFromUs: Math.round(first.at * 1000 + profileClockOffsetUs),
    windowToUs: Math.round(lastAck.at * 1000 + profileClockOffsetUs),
    gcMsInWindow: inWindow.reduce((sum, g) => sum + g.ms, 0),
    // Full (mark-compact) collections among them: they scale with everything the process holds, not with the burst.
    gcMajorInWindow: inWindow.filter((g) => g.major).length,
  };
}
