/**
 * The run's event log, written off the critical path: appends keep their call order (one chain per
 * log) but a step does not wait for its own log line. The durable transition a step depends on is
 * the step row (claimStep / finishStep), which is always awaited; flush() before the run moves on.
 */
import type { AgentContext } from './context.ts';
import type { RunEventArgs } from './run-events.ts';

export interface EventLog {
  /** A known event type with its payload: `append('step-started', {…})`. */
  append(...event: RunEventArgs): void;
  flush(): Promise<void>;
}

export function createEventLog(ctx: AgentContext, runId: string): EventLog {
  let tail: Promise<void> = Promise.resolve();
  return {
    append(...event) {
      tail = tail.then(() =>
        ctx.store.appendEvent(runId, ...event).then(
          () => undefined,
          (error: unknown) => ctx.logger.warn({ runId, type: event[0], err: error }, 'could not append run event'),
        ),
      );
    },
    flush: () => tail,
  };
}
