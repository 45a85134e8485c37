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
  /** The process's CPU time (all threads) in ms, read only for the kinds the figures need (0 otherwise). */
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
}

export function burstTimeline(): BurstTimeline {
  let marks: Mark[] = [];
  let gcs: { at: number; ms: number; major: boolean }[] = [];
  /** Each request's CPU reading at its arrival, then its CPU from arrival to ack: the one pair of readings serves both figures. */
  const arrivedAtCpu = new WeakMap<object, number>();
  let cpuToAck: number[] = [];
  let stored = 0;
  let handled = 0;
  // The CPU clock is a system call (~11 µs here): read once at each request's arrival and once at its ack, and
  // shared by every figure that needs it, so the bench weighs little on what it measures.
  const mark = (kind: Kind, cpu = 0, thread = Number.NaN) => marks.push({ kind, at: performance.now(), cpu, thread });
  // The main thread's clock is read at a burst's first arrival and at every ack (the last is not known yet).
  let arrived = false;
  const arrival = (kind: 'connect' | 'start', cpu: number) => {
    mark(kind, cpu, arrived ? Number.NaN : mainThreadCpu());
    arrived = true;
  };
  diagnostics.subscribe('net.server.socket', () => arrival('connect', cpuNow()));
  diagnostics.subscribe('http.server.request.start', (message) => {
    const cpu = cpuNow();
    arrivedAtCpu.set((message as { response: object }).response, cpu);
    arrival('start', cpu);
  });
  diagnostics.subscribe('http.server.response.finish', (message) => {
    const cpu = cpuNow();
    const arrived = arrivedAtCpu.get((message as { response: object }).response);
    if (arrived !== undefined) cpuToAck.push(cpu - arrived);
    mark('ack', cpu, mainThreadCpu());
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
    take() {
      const taken = { marks, gcs, cpuToAck };
      marks = [];
      gcs = [];
      cpuToAck = [];
      arrived = false;
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
    cpuToAckP99: sortedCpu.length ? sortedCpu[Math.min(sortedCpu.length - 1, Math.ceil(0.99 * sortedCpu.length) - 1)]! : 0,
  };
}

function summary(marks: Mark[], gcs: { at: number; ms: number; major: boolean }[]): Record<string, number> {
  const of = (kind: Kind) => marks.filter((m) => m.kind === kind);
  const acks = of('ack');
  const arrivals = marks.filter((m) => m.kind === 'connect' || m.kind === 'start');
  if (acks.length === 0 || arrivals.length === 0) return {};
  const first = arrivals[0]!;
  const lastAck = acks.at(-1)!;
  const before = (kind: Kind) => of(kind).filter((m) => m.at <= lastAck.at).length;
  const starts = of('start');
  const firstAck = acks[0]!;
  const inWindow = gcs.filter((g) => g.at >= first.at && g.at <= lastAck.at);
  const recordEnds = of('recordEnd').filter((m) => m.at <= lastAck.at);
  return {
    newSockets: of('connect').length,
    // From the first byte the bot saw of the burst to its last ack: wall time, and the bot's CPU time within it.
    firstArrivalToLastAckMs: lastAck.at - first.at,
    botCpuFirstArrivalToLastAckMs: lastAck.cpu - first.cpu,
    mainThreadCpuFirstArrivalToLastAckMs: lastAck.thread - first.thread,
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
