import { z } from 'zod';

/** Bump when the stored shape changes; old versions keep parsing through fixtures in test/fixtures. */
export const PLAN_SCHEMA_VERSION = 1;

const stepId = z.string().regex(/^[A-Za-z][A-Za-z0-9_-]{0,39}$/, 'a step id is a letter followed by letters, digits, _ or - (max 40)');

export const PlanStepSchema = z.object({
  id: stepId,
  title: z.string().min(1).max(200),
  tool: z.string().min(1),
  args: z.record(z.string(), z.unknown()).default({}),
  dependsOn: z.array(stepId).default([]),
  expect: z.string().max(500).optional(),
});

export const RollbackStepSchema = z.object({
  id: stepId,
  title: z.string().min(1).max(200),
  tool: z.string().min(1),
  args: z.record(z.string(), z.unknown()).default({}),
  /** The forward step this undoes; rollback runs only for forward steps that succeeded. */
  undoes: stepId.optional(),
});

/** A part of the request the plan does not do, and why ("clean up acme/api" — "no tool for it"). */
export const NotCoveredSchema = z.object({
  part: z.string().min(1).max(300),
  reason: z.string().max(300),
});

export const PlanSchema = z.object({
  schemaVersion: z.literal(PLAN_SCHEMA_VERSION).default(PLAN_SCHEMA_VERSION),
  goal: z.string().min(1).max(500),
  confidence: z.number().min(0).max(1),
  steps: z.array(PlanStepSchema).default([]),
  rollback: z.array(RollbackStepSchema).default([]),
  questions: z.array(z.string().min(1)).optional(),
  /**
   * Told to the approver on the plan. Not part of the digest (plan-digest.ts): nothing here runs, so an
   * approval binds to what the steps do, and a later wording of the gaps cannot unbind it.
   */
  notCovered: z.array(NotCoveredSchema).max(20).optional(),
});

export type Plan = z.infer<typeof PlanSchema>;
export type PlanStep = z.infer<typeof PlanStepSchema>;
export type RollbackStep = z.infer<typeof RollbackStepSchema>;
export type NotCovered = z.infer<typeof NotCoveredSchema>;

export type PlanAuthorKind = 'planner' | 'human' | 'runbook';
