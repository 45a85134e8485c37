/** What the traced store's span groups (steps, waits, a run's end) share. */
import type { RunRecord, RunStore } from '../agent/ports/run-store.ts';
import type { RunTrace, RunTracer } from '../agent/ports/tracer.ts';

/** Runs whose trace ids (and whose end) a process keeps in memory. */
export const MAX_REMEMBERED = 10_000;

/** What the span groups below share. */
export interface Recording {
  store: RunStore;
  tracer: RunTracer;
  content: boolean;
  redact(text: string): string;
  traceOf(runId: string): Promise<RunTrace | undefined>;
  remember(run: RunRecord | undefined): RunRecord | undefined;
  forget(runId: string): void;
  /** In the background, never throwing: the store call that triggered it has already returned. */
  later(work: () => Promise<void>): void;
}

export type Overrides = Partial<RunStore>;
