/**
 * Whom a wait for a person is addressed to after a Reassign, read from the run's event log (the
 * `wait-reassigned` events are the record; nothing else stores it). A wait nobody handed on has no
 * addressee by name: whoever may answer it is asked, as before.
 */
import { eventsOfType, type RunEvent } from '../model/run-events.ts';
import type { WaitKind } from '../ports/run-store.ts';

/** A wait's hand-overs, oldest first. */
export function handOvers(events: readonly RunEvent[], kind: WaitKind, key: string): { to: string; from: string | null; by: string }[] {
  return eventsOfType(events, 'wait-reassigned')
    .filter((event) => event.data.wait === kind && event.data.key === key)
    .map(({ data }) => ({ to: data.to, from: data.from, by: data.by }));
}

/** The person the wait is handed to now, and who handed it; undefined when nobody handed it on. */
export function currentAddressee(events: readonly RunEvent[], kind: WaitKind, key: string): { to: string; by: string } | undefined {
  const last = handOvers(events, kind, key).at(-1);
  return last && { to: last.to, by: last.by };
}

/** Whether `userId` had the wait handed to them once and then handed on to someone else. */
export function handedAwayFrom(events: readonly RunEvent[], kind: WaitKind, key: string, userId: string): boolean {
  const all = handOvers(events, kind, key);
  return all.some((handOver) => handOver.to === userId) && all.at(-1)?.to !== userId;
}
