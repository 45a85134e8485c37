/**
 * The demo's model: an LlmClient like the OpenAI and Anthropic adapters, answering from a script
 * instead of a network. It plans the guided tasks (the planner validates its plans like any model's),
 * checks steps, writes `llm_task` text and runs `agent_task`'s loop; anything else it says it does not know.
 */
import { LlmError } from '../../agent/model/errors.ts';
import type { LlmClient, LlmRequest, LlmResponse, LlmRole, LlmToolRequest, LlmToolResponse } from '../../agent/ports/llm.ts';
import type { DemoEndpoints } from './demo-plans.ts';
import { agentTurn, languageTurn, verdictTurn } from './language-turns.ts';
import { plannerTurn } from './planner-turn.ts';

const PROVIDER = 'demo';
const MODEL = 'scripted';
const NO_USAGE = { inputTokens: 0, outputTokens: 0 };

function answerFor(request: LlmRequest<unknown>, endpoints: DemoEndpoints): unknown {
  const prompt = request.messages[0]?.content ?? '';
  switch (request.schemaName) {
    case 'plan':
      return plannerTurn(prompt, endpoints);
    case 'verdict':
      return verdictTurn(prompt);
    case 'llm_task_result':
      return { text: languageTurn(prompt) };
    default:
      throw new LlmError('invalid-output', `the demo model has no scripted answer for "${request.schemaName}"`, { provider: PROVIDER, model: MODEL });
  }
}

export function createScriptedModel(endpoints: DemoEndpoints): LlmClient {
  return {
    // Every role but the fallback planner: the demo plans once, with no stronger model behind it.
    has: (role: LlmRole) => role !== 'planner-fallback',
    async generate<T>(request: LlmRequest<T>): Promise<LlmResponse<T>> {
      const raw = answerFor(request as LlmRequest<unknown>, endpoints);
      // The same gate the real adapters apply: an answer that does not fit the schema is an error, never passed on.
      const parsed = request.schema.safeParse(raw);
      if (!parsed.success) {
        throw new LlmError('invalid-output', `the demo model's ${request.schemaName} answer does not match its schema`, {
          raw: JSON.stringify(raw),
          provider: PROVIDER,
          model: MODEL,
        });
      }
      return { value: parsed.data, usage: NO_USAGE, provider: PROVIDER, model: MODEL, costUsd: 0 };
    },
    async converse(request: LlmToolRequest): Promise<LlmToolResponse> {
      return { ...agentTurn(request), usage: NO_USAGE, provider: PROVIDER, model: MODEL, costUsd: 0 };
    },
  };
}
