import type { RunEvent, RunEventArgs, RunEventInput } from '../model/run-events.ts';

/** The run's event log: gap-free, ordered per run. The event types and their payloads are in run-events.ts. */
export interface EventsPort {
  /** Only a known event type with its payload (see run-events.ts). */
  appendEvent(runId: string, ...event: RunEventArgs): Promise<RunEvent>;
  /** Several events in one write, numbered consecutively in the order given (the event log's batches). */
  appendEvents(runId: string, events: readonly RunEventInput[]): Promise<RunEvent[]>;
  /** One event for each of many runs, in one write (adopting many runs at once after a restart); a run that does not exist gets none. */
  appendToRuns(entries: readonly { runId: string; event: RunEventInput }[]): Promise<void>;
  /** Stored rows parsed by their schemas; a row this version does not know is an `unknown` event, never an error. */
  listEvents(runId: string): Promise<RunEvent[]>;
}
