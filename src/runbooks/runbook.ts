import { z } from 'zod';
import { PlanSchema, type Plan } from '../agent/model/plan/plan.ts';
import { literalWordProblem, placeholdersIn, placeholdersInValue } from './placeholders.ts';

/**
 * A runbook's plan: the plan artifact, whose strings may hold `{param}` placeholders. A runbook is written by
 * a person who knows the procedure, so confidence may be left out (0.9).
 */
export const RunbookPlanSchema = PlanSchema.extend({ confidence: z.number().min(0).max(1).default(0.9) });

/** One `runbooks/*.yml` file. */
export const RunbookFileSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/i, 'a name is letters, digits, ".", "_" or "-" (max 64)'),
    pattern: z.string().min(1).max(300),
    description: z.string().max(500).optional(),
    /** Scheduled runs of this runbook skip approval; honoured only when every step is read-only. */
    preApproved: z.boolean().default(false),
    plan: RunbookPlanSchema,
  })
  .strict()
  .superRefine((file, ctx) => {
    const params = placeholdersIn(file.pattern);
    if (params.length === 0 && /[{}]/.test(file.pattern)) ctx.addIssue({ code: 'custom', path: ['pattern'], message: 'placeholders are written {name}' });
    const literal = literalWordProblem(file.pattern);
    if (literal) ctx.addIssue({ code: 'custom', path: ['pattern'], message: literal });
    const unknown = placeholdersInValue(file.plan).filter((name) => !params.includes(name));
    if (unknown.length > 0) ctx.addIssue({ code: 'custom', path: ['plan'], message: `the plan uses ${unknown.map((name) => `{${name}}`).join(', ')}, which the pattern does not capture` });
  });

export type RunbookFile = z.infer<typeof RunbookFileSchema>;

export interface Runbook {
  name: string;
  pattern: string;
  description: string;
  /** As declared; whether it is honoured depends on the tools' risks (see read-only.ts). */
  preApproved: boolean;
  plan: Plan;
  params: string[];
  /** `file:<path>` or `run:<runId>` (saved from a finished run). */
  source: string;
  createdBy: string | null;
}

export function runbookFromFile(file: RunbookFile, path: string): Runbook {
  return {
    name: file.name,
    pattern: file.pattern,
    description: file.description ?? '',
    preApproved: file.preApproved,
    plan: file.plan,
    params: placeholdersIn(file.pattern),
    source: `file:${path}`,
    createdBy: null,
  };
}
