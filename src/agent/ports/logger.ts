/**
 * What the core, its tools, the runbook catalog and the scheduler need of a logger: structured fields
 * first, then a message. pino's Logger fits it; tests pass a collecting object.
 */
export interface LogPort {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Tools and the runbook catalog only note what happened: a failure reaches their caller as a result, not a log line. */
export type NoteLog = Pick<LogPort, 'info' | 'warn'>;
