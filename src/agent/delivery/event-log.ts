/**
 * The run's event log, written off the critical path: a step does not wait for its own log line, and
 * appends made while a write is under way go out together as the next batch (one statement, one
 * commit), in call order. A step's start and end are not written here: they go in the same statement
 * as the step row's transition (claimStep / finishStep), which is always awaited; the runner flushes
 * the log before a step's end, so what the step logged while it ran stays ahead of it. flush() before
 * the run moves on.
 */
import type { DeliveryContext } from './delivery-context.ts';
import { runEvent, type RunEventArgs, type RunEventInput } from '../model/run-events.ts';

export interface EventLog {
  /** A known event type with its payload: `append('step-started', {…})`. */
  append(...event: RunEventArgs): void;
  flush(): Promise<void>;
}

export function createEventLog(ctx: DeliveryContext, runId: string): EventLog {
  let pending: RunEventInput[] = [];
  let writing: Promise<void> | null = null;
  const writeBatches = async () => {
    // Appends made in the same turn of the event loop (steps finishing together) share the first batch.
    await new Promise((resolve) => setTimeout(resolve, 0));
    while (pending.length) {
      const batch = pending;
      pending = [];
      await ctx.store
        .appendEvents(runId, batch)
        .catch((error: unknown) => ctx.logger.warn({ runId, types: batch.map((event) => event.type), err: error }, 'could not append run events'));
    }
    writing = null;
  };
  return {
    append(...event) {
      pending.push(runEvent(...event));
      writing ??= writeBatches();
    },
    flush: () => writing ?? Promise.resolve(),
  };
}
