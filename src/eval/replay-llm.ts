/**
 * An LlmClient that replays a recording: each role's answers in call order, each checked against
 * the request's schema like a live answer. Running out of answers is a model failure the run sees.
 */
import { LlmError } from '../agent/model/errors.ts';
import type { LlmClient, LlmRequest, LlmResponse, LlmRole, LlmToolRequest, LlmToolResponse, LlmUsage } from '../agent/ports/llm.ts';
import type { Provider } from '../config/config.ts';
import { costUsd } from '../integrations/llm/prices.ts';
import { RecordedTurnSchema, type RecordedAnswer, type Recording } from './recording-file.ts';

export interface ReplayLlm extends LlmClient {
  /** Answers never asked for: the run took a different path than when it was recorded. */
  unused(): { role: LlmRole; count: number }[];
}

/** About four characters a token: good enough to compare recorded runs, and labelled as an estimate. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export function createReplayLlm(recording: Recording): ReplayLlm {
  const queues = new Map<LlmRole, RecordedAnswer[]>();
  for (const answer of recording.answers) queues.set(answer.role, [...(queues.get(answer.role) ?? []), answer]);
  const served = new Map<LlmRole, number>();
  // A recorded model's answers cost what that model charges; scripted answers cost nothing.
  const model = /^recorded: (\S+):(\S+) /.exec(recording.source);
  const priced = (usage: LlmUsage) => (model ? costUsd({ provider: model[1] as Provider, model: model[2]! }, usage) : 0);
  const next = (role: LlmRole) => {
    const count = (served.get(role) ?? 0) + 1;
    served.set(role, count);
    const answer = queues.get(role)?.shift();
    if (!answer) throw new LlmError('unavailable', `the recording of ${recording.task} has no ${role} answer for call ${count}`);
    return { answer, count };
  };

  return {
    // The planner always "exists" so a missing answer shows up as a failure, not as the no-model path.
    has: (role) => role === 'planner' || queues.has(role),
    async generate<T>(request: LlmRequest<T>): Promise<LlmResponse<T>> {
      const { answer, count } = next(request.role);
      const usage: LlmUsage = answer.usage ?? {
        inputTokens: estimateTokens([request.system, ...request.messages.map((m) => m.content)].join('\n')),
        outputTokens: estimateTokens(JSON.stringify(answer.value)),
      };
      const parsed = request.schema.safeParse(answer.value);
      if (!parsed.success) {
        throw new LlmError('invalid-output', `recorded ${request.role} answer ${count} does not match ${request.schemaName}`, {
          raw: JSON.stringify(answer.value),
          issues: parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`),
        });
      }
      return { value: parsed.data, usage, provider: 'recorded', model: recording.source, costUsd: priced(usage) };
    },
    async converse(request: LlmToolRequest): Promise<LlmToolResponse> {
      const { answer, count } = next(request.role);
      const parsed = RecordedTurnSchema.safeParse(answer.value);
      if (!parsed.success) throw new LlmError('unavailable', `recorded ${request.role} answer ${count} of ${recording.task} is not a tool-loop turn ({ text, toolCalls })`);
      const usage: LlmUsage = answer.usage ?? {
        inputTokens: estimateTokens([request.system, ...request.messages.map((turn) => JSON.stringify(turn))].join('\n')),
        outputTokens: estimateTokens(JSON.stringify(answer.value)),
      };
      return { ...parsed.data, usage, provider: 'recorded', model: recording.source, costUsd: priced(usage) };
    },
    unused: () => [...queues].filter(([, left]) => left.length > 0).map(([role, left]) => ({ role, count: left.length })),
  };
}
