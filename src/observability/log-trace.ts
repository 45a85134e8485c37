/**
 * The trace and span ids a log line carries (`trace_id`, `span_id`), so a line found in the logs leads
 * to its run's trace and back. Empty until tracing starts (tracing.ts sets the source), so a bot
 * without tracing logs what it always did.
 */
type TraceFields = (line: object) => { trace_id: string; span_id: string } | undefined;

let source: TraceFields | undefined;

export function setLogTraceFields(fields: TraceFields | undefined): void {
  source = fields;
}

/** pino's mixin: merged into every line. */
export function logTraceFields(line: object): object {
  return source?.(line) ?? {};
}
