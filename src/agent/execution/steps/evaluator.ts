/**
 * Did a step do what it should? Deterministic checks first (the tool's output schema, its own
 * check()); then, only when the step says what to expect and an evaluator model exists, a model check.
 */
import { z } from 'zod';
import { LlmError } from '../../model/errors.ts';
import type { LlmClient, LlmResponse } from '../../ports/llm.ts';
import type { AnyTool } from '../../ports/tool.ts';
import { DATA_RULE, dataBlock } from '../../text/untrusted-data.ts';

export interface Verdict {
  verdict: 'pass' | 'fail' | 'uncertain';
  reason: string;
  /** Which check decided: 'output-schema', 'tool-check', 'model' or 'none'. */
  by: 'output-schema' | 'tool-check' | 'model' | 'none';
}

const EvaluatorAnswerSchema = z.object({
  verdict: z.enum(['pass', 'fail', 'uncertain']),
  reason: z.string().describe('One sentence a person can act on'),
});

export interface EvaluateInput {
  tool: AnyTool;
  args: Record<string, unknown>;
  /** The tool's raw output: deterministic checks see exactly what the tool returned. */
  output: Record<string, unknown>;
  /** The redacted, size-limited output: what a model may see. */
  storedOutput: Record<string, unknown>;
  step: { id: string; title: string; expect?: string | undefined };
  runId: string;
}

export interface EvaluatorDeps {
  llm: LlmClient;
  secrets: readonly string[];
  onUsage?: (response: LlmResponse<unknown>) => Promise<void>;
}

export async function evaluateStep(deps: EvaluatorDeps, input: EvaluateInput): Promise<Verdict> {
  if (input.tool.output) {
    const parsed = input.tool.output.safeParse(input.output);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return {
        verdict: 'fail',
        by: 'output-schema',
        reason: `${input.tool.name} returned output that does not match its schema (${issue?.path.join('.') || 'output'}: ${issue?.message})`,
      };
    }
  }
  if (input.tool.check) {
    const checked = input.tool.check(input.output, input.args);
    if (!checked.ok) return { verdict: 'fail', by: 'tool-check', reason: checked.reason };
  }
  if (!input.step.expect || !deps.llm.has('evaluator')) return { verdict: 'pass', by: 'none', reason: 'deterministic checks passed' };
  try {
    const response = await deps.llm.generate({
      role: 'evaluator',
      runId: input.runId,
      schema: EvaluatorAnswerSchema,
      schemaName: 'verdict',
      system: `You check whether one step of a chat-ops plan did what it was meant to. Answer pass, fail, or uncertain when the output does not let you tell. ${DATA_RULE}`,
      messages: [
        {
          role: 'user',
          content: `Step ${input.step.id}: ${input.step.title}\nTool: ${input.tool.name}\nExpected: ${input.step.expect}\nOutput:\n${dataBlock(`output of ${input.step.id}`, input.storedOutput, deps.secrets)}`,
        },
      ],
    });
    await deps.onUsage?.(response);
    return { verdict: response.value.verdict, reason: response.value.reason, by: 'model' };
  } catch (error) {
    if (!(error instanceof LlmError)) throw error;
    return { verdict: 'uncertain', by: 'model', reason: `the evaluator model could not check the result: ${error.message}` };
  }
}
