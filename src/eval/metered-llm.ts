/** Wraps an LlmClient to count what one eval task spent: calls, tokens, and time per role. */
import type { LlmClient, LlmRequest, LlmResponse, LlmRole } from '../agent/ports/llm.ts';
import type { RecordedAnswer } from './recording-file.ts';

export interface RoleMeter {
  calls: number;
  failures: number;
  inputTokens: number;
  outputTokens: number;
  ms: number;
}

export interface MeteredLlm extends LlmClient {
  readonly meters: Map<LlmRole, RoleMeter>;
  /** Every answer in call order, for `--record`. */
  readonly answers: RecordedAnswer[];
}

export function meterLlm(inner: LlmClient): MeteredLlm {
  const meters = new Map<LlmRole, RoleMeter>();
  const answers: RecordedAnswer[] = [];
  const meterOf = (role: LlmRole) => {
    let meter = meters.get(role);
    if (!meter) meters.set(role, (meter = { calls: 0, failures: 0, inputTokens: 0, outputTokens: 0, ms: 0 }));
    return meter;
  };
  return {
    meters,
    answers,
    has: (role) => inner.has(role),
    async generate<T>(request: LlmRequest<T>): Promise<LlmResponse<T>> {
      const meter = meterOf(request.role);
      const started = performance.now();
      meter.calls++;
      try {
        const response = await inner.generate(request);
        meter.inputTokens += response.usage.inputTokens;
        meter.outputTokens += response.usage.outputTokens;
        answers.push({ role: request.role, value: response.value, usage: response.usage });
        return response;
      } catch (error) {
        meter.failures++;
        throw error;
      } finally {
        meter.ms += performance.now() - started;
      }
    },
  };
}
