import { setImmediate } from 'node:timers/promises';

/**
 * Under a burst, acks go out before anyone's slower work: a request's work after its ack waits until
 * every request received so far has been acknowledged (at most `maxWaitMs`, so steady traffic cannot
 * starve it). Slack retries what it does not see acknowledged within 3 s; the work after an ack (the
 * store, Slack calls, the agent) can wait a few milliseconds more.
 */
export class AckFirst {
  private unacked = 0;
  /** Requests received since the gate was made: one read and acknowledged within a turn leaves `unacked` unchanged but not this. */
  private arrived = 0;
  private waking: (() => void)[] = [];
  /** Work waiting for its turn, each with the moment it goes whatever arrives. */
  private held: { deadline: number; resume: () => void }[] = [];
  private watching = false;

  constructor(private readonly maxWaitMs = 250) {}

  /** A request was received; the returned function says it was acknowledged (or finished without an ack); calling it again does nothing. */
  received(): () => void {
    this.unacked += 1;
    this.arrived += 1;
    let settled = false;
    return () => {
      if (settled) return;
      settled = true;
      this.unacked -= 1;
      if (this.unacked === 0) this.wake();
    };
  }

  /**
   * Resolves once no received request is waiting for its ack (or after `maxWaitMs`) and a turn of pending
   * I/O let in since brings none either, acknowledged or not: a burst is read over several turns, and work
   * let go after the first turn would otherwise delay the acks of the requests read in the next. A request
   * stored at once (an inbox in memory) is acknowledged in the turn it is read, so counting only the
   * unacknowledged ones let the work go between every two requests of a burst.
   */
  othersAcked(): Promise<void> {
    return new Promise((resume) => {
      this.held.push({ deadline: performance.now() + this.maxWaitMs, resume });
      if (!this.watching) void this.watch();
    });
  }

  /** One watcher for all the held work: a turn costs one immediate however many requests wait. */
  private async watch(): Promise<void> {
    this.watching = true;
    try {
      while (this.held.length > 0) {
        // Held in arrival order, so the first held is the first due.
        if (this.unacked > 0) await this.untilAckedOr(this.held[0]!.deadline);
        const seen = this.arrived;
        await setImmediate();
        const quiet = this.unacked === 0 && this.arrived === seen;
        const now = performance.now();
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
