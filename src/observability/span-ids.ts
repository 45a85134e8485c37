import { createHash, randomBytes } from 'node:crypto';
import type { RunTrace } from '../agent/ports/tracer.ts';

/**
 * The spans of a run's trace every replica must name alike: a step's attempt, a plan version, a
 * planning round. Each id is a hash of the run's stored trace id and what the span is, so a tool call
 * on one replica and its step's span recorded by another after a restart still meet in one tree.
 */
export const runSpans = {
  root: (trace: RunTrace) => trace.rootSpanId,
  planning: (trace: RunTrace, version: number) => spanIdOf(trace.traceId, 'planning', version),
  plan: (trace: RunTrace, version: number) => spanIdOf(trace.traceId, 'plan', version),
  step: (trace: RunTrace, at: { planVersion: number; stepId: string; attempt: number }) =>
    spanIdOf(trace.traceId, 'step', at.planVersion, at.stepId, at.attempt),
};

/** 16 hex digits, never all zeros (an invalid span id in W3C trace-context). */
export function spanIdOf(traceId: string, ...parts: (string | number)[]): string {
  const hex = createHash('sha256')
    .update(JSON.stringify([traceId, ...parts]))
    .digest('hex')
    .slice(0, 16);
  return /[^0]/.test(hex) ? hex : '0000000000000001';
}

/** A span nothing points to (a wait for a person): random. */
export function randomSpanId(): string {
  for (;;) {
    const hex = randomBytes(8).toString('hex');
    if (/[^0]/.test(hex)) return hex;
  }
}
