import { setImmediate } from 'node:timers/promises';

/**
 * Called right after ack(): lets the event loop finish reading and acking requests that already
 * arrived before this one's slower work (store, Slack calls) takes the CPU. Under a burst, acks
 * come first and stay inside Slack's 3 s.
 */
export function afterAck(): Promise<void> {
  return setImmediate();
}
