/** Wraps an LlmClient to count what one eval task spent: calls, tokens, cost and time per role, and the planner's repair rounds. */
import type { LlmClient, LlmRequest, LlmResponse, LlmRole, LlmToolRequest, LlmToolResponse } from '../agent/ports/llm.ts';
import type { RecordedAnswer } from './recording-file.ts';

export interface RoleMeter {
  calls: number;
  failures: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  ms: number;
}

export interface MeteredLlm extends LlmClient {
  readonly meters: Map<LlmRole, RoleMeter>;
  /** Every answer in call order, for `--record`. */
  readonly answers: RecordedAnswer[];
  /** Per planner call, in order: whether it was a repair round (the request carried the model's earlier answer). */
  readonly plannerCalls: { repair: boolean }[];
}

export function meterLlm(inner: LlmClient): MeteredLlm {
  const meters = new Map<LlmRole, RoleMeter>();
  const answers: RecordedAnswer[] = [];
  const plannerCalls: { repair: boolean }[] = [];
  const meterOf = (role: LlmRole) => {
    let meter = meters.get(role);
    if (!meter) meters.set(role, (meter = { calls: 0, failures: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, ms: 0 }));
    return meter;
  };
  async function metered<R extends { usage: { inputTokens: number; outputTokens: number }; costUsd: number }>(role: LlmRole, call: () => Promise<R>, value: (response: R) => unknown): Promise<R> {
    const meter = meterOf(role);
    const started = performance.now();
    meter.calls++;
    try {
      const response = await call();
      meter.inputTokens += response.usage.inputTokens;
      meter.outputTokens += response.usage.outputTokens;
      meter.costUsd += response.costUsd;
      answers.push({ role, value: value(response), usage: response.usage });
      return response;
    } catch (error) {
      meter.failures++;
      throw error;
    } finally {
      meter.ms += performance.now() - started;
    }
  }
  const converse = inner.converse?.bind(inner);
  return {
    meters,
    answers,
    plannerCalls,
    has: (role) => inner.has(role),
    generate<T>(request: LlmRequest<T>): Promise<LlmResponse<T>> {
      if (request.role === 'planner') plannerCalls.push({ repair: request.messages.some((message) => message.role === 'assistant') });
      return metered(request.role, () => inner.generate(request), (response) => response.value);
    },
    ...(converse
      ? {
          converse: (request: LlmToolRequest): Promise<LlmToolResponse> =>
            metered(request.role, () => converse(request), (response) => ({ text: response.text, toolCalls: response.toolCalls })),
        }
      : {}),
  };
}
