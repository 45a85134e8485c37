import { setImmediate, setTimeout as sleep } from 'node:timers/promises';

/**
 * Under a burst, acks go out before anyone's slower work: a request's work after its ack waits until
 * every request received so far has been acknowledged and the burst has stopped arriving (at most
 * `maxWaitMs`, so steady traffic cannot starve it). Slack retries what it does not see acknowledged
 * within 3 s; the work after an ack (the store, Slack calls, the agent) can wait a few milliseconds more.
 */
export class AckFirst {
  private unacked = 0;
  /** Requests received since the gate was made: one read and acknowledged within a turn leaves `unacked` unchanged but not this. */
  private arrived = 0;
  private lastArrivalAt = -Infinity;
  private waking: (() => void)[] = [];
  /** Work waiting for its turn, each with the moment it goes whatever arrives. */
  private held: { deadline: number; resume: () => void }[] = [];
  private watching = false;

  /**
   * `quietMs`: how long no request may arrive before held work goes. A burst's requests are read over several
   * turns of I/O; work let go in a gap between them would delay the acks of the rest (decision 030).
   */
  constructor(
    private readonly maxWaitMs = 250,
    private readonly quietMs = 3,
  ) {}

  /** A request was received; the returned function says it was acknowledged (or finished without an ack); calling it again does nothing. */
  received(): () => void {
    this.unacked += 1;
    this.arrived += 1;
    this.lastArrivalAt = performance.now();
    let settled = false;
    return () => {
      if (settled) return;
      settled = true;
      this.unacked -= 1;
      if (this.unacked === 0) this.wake();
    };
  }

  /**
   * Resolves once no received request is waiting for its ack and none has arrived for `quietMs`, across
   * two turns of the event loop (or after `maxWaitMs`). Two turns, because an immediate asked for while
   * the loop handles I/O runs before the loop polls again: only the second follows a poll, which reads
   * the rest of a burst. A request stored at once (an inbox in memory) is acknowledged in the turn it is
   * read, so `arrived` counts too, not only the unacknowledged.
   */
  othersAcked(): Promise<void> {
    return new Promise((resume) => {
      this.held.push({ deadline: performance.now() + this.maxWaitMs, resume });
      if (!this.watching) void this.watch();
    });
  }

  /** One watcher for all the held work: a turn costs two immediates however many requests wait. */
  private async watch(): Promise<void> {
    this.watching = true;
    try {
      while (this.held.length > 0) {
        // Held in arrival order, so the first held is the first due.
        const due = this.held[0]!.deadline;
        if (this.unacked > 0) await this.untilAckedOr(due);
        const seen = this.arrived;
        await setImmediate();
        await setImmediate();
        const now = performance.now();
        const quiet = this.unacked === 0 && this.arrived === seen;
        const quietLeft = this.lastArrivalAt + this.quietMs - now;
        // Not quiet long enough yet: wait out the rest, then look again after a poll. A timer runs before the
        // loop polls, so a process paused (by the machine or a collection) past the window would otherwise let
        // the work go with the rest of the burst unread on its sockets.
        if (quiet && quietLeft > 0 && due > now) {
          await sleep(Math.min(quietLeft, due - now));
          continue;
        }
        const going = quiet ? this.held : this.held.filter((entry) => entry.deadline <= now);
        this.held = quiet ? [] : this.held.filter((entry) => entry.deadline > now);
        for (const entry of going) entry.resume();
      }
    } finally {
      this.watching = false;
    }
  }

  private untilAckedOr(deadline: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, Math.max(0, deadline - performance.now()));
      this.waking.push(() => (clearTimeout(timer), resolve()));
    });
  }

  private wake(): void {
    const waking = this.waking;
    this.waking = [];
    for (const resume of waking) resume();
  }
}
