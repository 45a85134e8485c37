import { LlmError } from '../../agent/errors.ts';
import type { LlmClient, LlmRequest, LlmResponse, LlmRole, LlmToolRequest, LlmToolResponse, LlmTurn } from '../../agent/ports/llm.ts';
import type { UsageRecord } from '../../agent/ports/run-store.ts';
import { redactText, redactValue } from '../../agent/redact.ts';
import type { Config, ModelRoute } from '../../config/config.ts';
import type { Logger } from '../../observability/logger.ts';
import { createAnthropicModel } from './anthropic-model.ts';
import type { ChatModel } from './chat-model.ts';
import { interpretAnswer } from './interpret-answer.ts';
import { createOpenAiModel } from './openai-model.ts';
import { costUsd } from './prices.ts';

export interface LlmClientOptions {
  config: Pick<Config, 'models' | 'openai' | 'anthropic' | 'modelPrices' | 'secrets'>;
  /** Called once for every answer a model sent back, failed ones included: they were paid for. */
  onUsage: (usage: UsageRecord) => void | Promise<void>;
  logger: Logger;
  timeoutMs?: number;
  maxRetries?: number;
  fetch?: typeof globalThis.fetch;
}

const NOT_CONFIGURED = 'set PLANNER_MODEL (e.g. openai:gpt-4o or anthropic:claude-sonnet-4-5) with OPENAI_API_KEY or ANTHROPIC_API_KEY';

/** Routes each role to its configured model; redacts prompts, prices and records every call. */
export function createLlmClient(options: LlmClientOptions): LlmClient {
  const { config, logger } = options;
  const models = new Map<string, ChatModel>();

  // One adapter per route for the client's life, so what it learns (JSON-mode fallback) sticks.
  function modelFor(route: ModelRoute): ChatModel {
    const key = `${route.provider}:${route.model}`;
    let model = models.get(key);
    if (!model) {
      const common = { model: route.model, timeoutMs: options.timeoutMs, maxRetries: options.maxRetries, fetch: options.fetch };
      model =
        route.provider === 'openai'
          ? createOpenAiModel({ ...common, apiKey: config.openai.apiKey, baseURL: config.openai.baseUrl, logger })
          : createAnthropicModel({ ...common, apiKey: config.anthropic.apiKey ?? '', baseURL: config.anthropic.baseUrl });
      models.set(key, model);
    }
    return model;
  }

  async function recordUsage(usage: UsageRecord): Promise<void> {
    try {
      await options.onUsage(usage);
    } catch (error) {
      logger.warn({ err: error, role: usage.role, model: usage.model }, 'could not record model usage');
    }
  }

  async function generate<T>(request: LlmRequest<T>): Promise<LlmResponse<T>> {
    const route = config.models[request.role];
    if (!route) throw new LlmError('not-configured', `No model is configured for the ${request.role}: ${NOT_CONFIGURED}.`);
    const redact = (text: string) => redactText(text, config.secrets);
    const startedAt = Date.now();
    try {
      const answer = await modelFor(route).answer({
        system: redact(request.system),
        messages: request.messages.map((message) => ({ role: message.role, content: redact(message.content) })),
        schema: request.schema,
        schemaName: request.schemaName,
        maxOutputTokens: request.maxOutputTokens,
        signal: request.signal,
      });
      const cost = costUsd(route, answer.usage, config.modelPrices);
      await recordUsage({ runId: request.runId ?? null, role: request.role, provider: route.provider, model: route.model, ...answer.usage, costUsd: cost });
      logger.debug(
        { role: request.role, model: route.model, ...answer.usage, costUsd: cost, ms: Date.now() - startedAt, outcome: answer.kind },
        'model answered',
      );
      const value = interpretAnswer(answer, {
        role: request.role,
        route,
        schema: request.schema,
        schemaName: request.schemaName,
        maxOutputTokens: request.maxOutputTokens,
        redact,
      });
      return { value, usage: answer.usage, provider: route.provider, model: route.model, costUsd: cost };
    } catch (error) {
      if (error instanceof LlmError) logger.warn({ role: request.role, model: route.model, kind: error.kind, runId: request.runId }, error.message);
      throw error;
    }
  }

  async function converse(request: LlmToolRequest): Promise<LlmToolResponse> {
    const route = config.models[request.role];
    if (!route) throw new LlmError('not-configured', `No model is configured for the ${request.role}: ${NOT_CONFIGURED}.`);
    const redact = (text: string) => redactText(text, config.secrets);
    const startedAt = Date.now();
    try {
      const answer = await modelFor(route).converse({
        system: redact(request.system),
        messages: request.messages.map((turn) => redactTurn(turn, config.secrets)),
        tools: request.tools,
        toolChoice: request.toolChoice ?? 'auto',
        maxOutputTokens: request.maxOutputTokens,
        signal: request.signal,
      });
      const cost = costUsd(route, answer.usage, config.modelPrices);
      await recordUsage({ runId: request.runId ?? null, role: request.role, provider: route.provider, model: route.model, ...answer.usage, costUsd: cost });
      logger.debug(
        {
          role: request.role,
          model: route.model,
          ...answer.usage,
          costUsd: cost,
          ms: Date.now() - startedAt,
          outcome: answer.kind,
          toolCalls: answer.toolCalls.length,
        },
        'model answered',
      );
      const details = { provider: route.provider, model: route.model, raw: redact(answer.text) };
      if (answer.kind === 'refused')
        throw new LlmError('refusal', `The ${request.role} model (${route.model}) declined to answer: ${redact(answer.text).slice(0, 200)}`, details);
      if (answer.kind === 'truncated')
        throw new LlmError('max-tokens', `The ${request.role} model (${route.model}) used up its output limit before finishing its turn.`, details);
      return { text: answer.text, toolCalls: answer.toolCalls, usage: answer.usage, provider: route.provider, model: route.model, costUsd: cost };
    } catch (error) {
      if (error instanceof LlmError) logger.warn({ role: request.role, model: route.model, kind: error.kind, runId: request.runId }, error.message);
      throw error;
    }
  }

  return {
    generate,
    converse,
    has: (role: LlmRole) => config.models[role] !== undefined,
  };
}

function redactTurn(turn: LlmTurn, secrets: readonly string[]): LlmTurn {
  if (turn.role === 'user') return { role: 'user', content: redactText(turn.content, secrets) };
  if (turn.role === 'tool') return { role: 'tool', results: turn.results.map((result) => ({ ...result, content: redactText(result.content, secrets) })) };
  return {
    role: 'assistant',
    content: redactText(turn.content, secrets),
    toolCalls: turn.toolCalls.map((call) => ({ ...call, args: redactValue(call.args, secrets) })),
  };
}
