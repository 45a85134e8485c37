/**
 * One golden planner task (eval/golden/<name>.yml): the task, the tools offered, what the fake tools
 * answer (canned outputs, injected failures), how the harness plays the people, and what must hold.
 */
import { z } from 'zod';

const ToolName = z.string().regex(/^[a-z][a-z0-9_]*$/, 'a tool name such as github_get_pull');
const Risk = z.enum(['read', 'write', 'destructive']);

/** Canned tool output: plain JSON, never a template (a golden file must not smuggle references). */
const CannedOutput = z
  .record(z.string(), z.unknown())
  .refine((value) => !JSON.stringify(value).includes('{{'), 'canned outputs are plain JSON: no {{…}} references');

export const InjectedFailureSchema = z.object({
  tool: ToolName,
  message: z.string().min(1),
  /** The executor retries a transient error with backoff; anything else fails the step at once. */
  transient: z.boolean().default(false),
  /** The side effect may or may not have happened (an uncertain write goes to a person). */
  uncertain: z.boolean().default(false),
  code: z.string().optional(),
  /** The first call of this tool (1-based, retries included) that fails … */
  call: z.number().int().positive().default(1),
  /** … and how many calls in a row fail from there. */
  times: z.number().int().positive().default(1),
});

/** `expired`: the plan was not approved within its time to live (run status of migration 0016); nothing ran. */
export const RUN_OUTCOMES = ['succeeded', 'failed', 'aborted', 'rolled-back', 'asked', 'cancelled', 'rejected', 'expired'] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];

export const ExpectationsSchema = z.object({
  /** Each tool is used by some step of the first plan. */
  toolsInclude: z.array(ToolName).default([]),
  /** No plan version of the run (replans included, rollback included) uses these tools. */
  toolsExclude: z.array(ToolName).default([]),
  /** Tools in this order along one dependency chain of the first plan: each later step waits (transitively) for the earlier. */
  sequence: z.array(ToolName).default([]),
  minSteps: z.number().int().nonnegative().optional(),
  maxSteps: z.number().int().positive().optional(),
  /** Every first-plan step using one of these tools has a rollback step that undoes it. */
  mustHaveRollbackFor: z.array(ToolName).default([]),
  /** true: the first plan asks the requester and has no steps; false: it has steps and no questions. */
  questions: z.boolean().optional(),
  /** The highest risk among the first plan's steps (rollback included) is at most this. */
  maxRisk: Risk.optional(),
  /** Some first-plan step of the tool has args containing these values (deep partial match). */
  args: z.record(ToolName, z.record(z.string(), z.unknown())).default({}),
  minConfidence: z.number().min(0).max(1).optional(),
  maxConfidence: z.number().min(0).max(1).optional(),
  /** How the run ended once the harness stopped playing the people. */
  outcome: z.enum(RUN_OUTCOMES).optional(),
  /** Whether any escalation was opened. */
  escalated: z.boolean().optional(),
  replans: z.number().int().nonnegative().optional(),
  /** Tools never called while the run ran, calls made inside agent_task included. */
  notCalled: z.array(ToolName).default([]),
  /** What the run's agent_task steps did, all together. */
  agent: z
    .object({
      /** Calls that reached a tool. */
      calls: z.number().int().nonnegative().optional(),
      /** Calls refused before any tool (not listed, over maxCalls). */
      refused: z.number().int().nonnegative().optional(),
      /** How the (last) agent_task step ended, and its error code when it failed. */
      status: z.enum(['succeeded', 'failed']).optional(),
      errorCode: z.string().optional(),
    })
    .optional(),
  /** Whether the fallback planner wrote a plan version. */
  fallback: z.boolean().optional(),
});

export const EscalationActionSchema = z.enum(['retry', 'skip', 'replan', 'abort']);

export const GoldenTaskSchema = z.object({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,79}$/, 'kebab-case, e.g. release-cut-with-notify'),
  description: z.string().optional(),
  task: z.string().min(1).max(4000),
  /** Tools offered to the planner (default: every built-in tool). */
  tools: z.array(ToolName).min(1).optional(),
  /** Per tool: one output for every call, or a list for successive calls (the last repeats). Merged over a plausible default. */
  outputs: z.record(ToolName, z.union([CannedOutput, z.array(CannedOutput).min(1)])).default({}),
  failures: z.array(InjectedFailureSchema).default([]),
  /** Replies to the plan's questions, in order; when they run out a question ends the run as `asked`. */
  answers: z.array(z.string().min(1)).default([]),
  /** The answer ask_human steps get, in order (the last repeats). */
  humanAnswers: z.array(z.string().min(1)).default(['yes, go ahead']),
  /** `withheld`: nobody approves the plan; the harness lets its time to live pass (one housekeeping sweep after it). */
  approval: z.enum(['given', 'withheld']).default('given'),
  /** How escalations are resolved, in order (the last repeats). A refused action falls back to abort. */
  onEscalation: z.array(EscalationActionSchema).min(1).default(['replan', 'abort']),
  expect: ExpectationsSchema,
});

export type GoldenTask = z.infer<typeof GoldenTaskSchema>;
export type Expectations = z.infer<typeof ExpectationsSchema>;
