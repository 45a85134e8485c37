import { z } from 'zod';

/**
 * What a button carries. Plan buttons bind to (runId, planVersion) so a click on an old plan can never
 * approve a newer one; escalation buttons bind to the escalation id. Parsed with zod on every click.
 */
const PlanRefSchema = z.object({
  r: z.string().min(1),
  v: z.number().int().positive(),
  /** The short content digest the message showed (Approve binds to it); absent on buttons drawn before digests. */
  d: z
    .string()
    .regex(/^[0-9a-f]{12,64}$/)
    .optional(),
});
/** An escalation's buttons name it; its "Approve anyway" also carries the plan digest it was drawn for, as Approve does. */
const EscalationRefSchema = z.object({
  e: z.string().min(1),
  d: z
    .string()
    .regex(/^[0-9a-f]{12,64}$/)
    .optional(),
});
const ScheduleRefSchema = z.object({ s: z.string().min(1) });
const StepRefSchema = z.object({ r: z.string().min(1), v: z.number().int().positive(), s: z.string().min(1) });

/** Confirm / Abort of a late-bound target bind to the run, the plan version and the step. */
export interface StepRef extends PlanRef {
  stepId: string;
}

export function encodeStepRef(ref: StepRef): string {
  return JSON.stringify({ r: ref.runId, v: ref.planVersion, s: ref.stepId });
}

export function decodeStepRef(value: string | undefined): StepRef | undefined {
  const parsed = StepRefSchema.safeParse(safeJson(value));
  return parsed.success ? { runId: parsed.data.r, planVersion: parsed.data.v, stepId: parsed.data.s } : undefined;
}

export interface PlanRef {
  runId: string;
  planVersion: number;
  digest?: string;
}

export function encodePlanRef(ref: PlanRef): string {
  return JSON.stringify({ r: ref.runId, v: ref.planVersion, ...(ref.digest ? { d: ref.digest } : {}) });
}

export function decodePlanRef(value: string | undefined): PlanRef | undefined {
  const parsed = PlanRefSchema.safeParse(safeJson(value));
  if (!parsed.success) return undefined;
  return { runId: parsed.data.r, planVersion: parsed.data.v, ...(parsed.data.d ? { digest: parsed.data.d } : {}) };
}

export function encodeEscalationRef(escalationId: string, digest?: string): string {
  return JSON.stringify({ e: escalationId, ...(digest ? { d: digest } : {}) });
}

export function decodeEscalationRef(value: string | undefined): string | undefined {
  return decodeEscalationButton(value)?.escalationId;
}

/** The escalation a button names and, on "Approve anyway", the plan digest it was drawn for. */
export function decodeEscalationButton(value: string | undefined): { escalationId: string; digest?: string } | undefined {
  const parsed = EscalationRefSchema.safeParse(safeJson(value));
  return parsed.success ? { escalationId: parsed.data.e, ...(parsed.data.d ? { digest: parsed.data.d } : {}) } : undefined;
}

export function encodeScheduleRef(scheduleId: string): string {
  return JSON.stringify({ s: scheduleId });
}

export function decodeScheduleRef(value: string | undefined): string | undefined {
  const parsed = ScheduleRefSchema.safeParse(safeJson(value));
  return parsed.success ? parsed.data.s : undefined;
}

function safeJson(value: string | undefined): unknown {
  if (!value) return undefined;
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}
