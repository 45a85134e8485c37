import { setImmediate } from 'node:timers/promises';

/**
 * Under a burst, acks go out before anyone's slower work: a request's work after its ack waits until
 * every request received so far has been acknowledged (at most `maxWaitMs`, so steady traffic cannot
 * starve it). Slack retries what it does not see acknowledged within 3 s; the work after an ack (the
 * store, Slack calls, the agent) can wait a few milliseconds more.
 */
export class AckFirst {
  private unacked = 0;
  private waiting: (() => void)[] = [];

  constructor(private readonly maxWaitMs = 250) {}

  /** A request was received; the returned function says it was acknowledged (or finished without an ack); calling it again does nothing. */
  received(): () => void {
    this.unacked += 1;
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
   * I/O let in since finds none either: a burst is read over several turns, and work let go after the
   * first turn would otherwise delay the acks of the requests read in the next.
   */
  async othersAcked(): Promise<void> {
    const deadline = performance.now() + this.maxWaitMs;
    do {
      if (this.unacked > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.max(0, deadline - performance.now()));
          this.waiting.push(() => (clearTimeout(timer), resolve()));
        });
      }
      await setImmediate();
    } while (this.unacked > 0 && performance.now() < deadline);
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const resume of waiting) resume();
  }
}
