import { LlmError } from '../../agent/model/errors.ts';
import type { LlmClient, LlmRequest, LlmResponse, LlmRole, LlmToolRequest, LlmToolResponse, LlmTurn, LlmUsage } from '../../agent/ports/llm.ts';
import type { UsageRecord } from '../../agent/ports/run-store.ts';
import { redactText, redactValue } from '../../agent/text/redact.ts';
import type { Config, ModelRoute } from '../../config/config.ts';
import type { Logger } from '../../observability/logger.ts';
import type { ChatModel } from './chat-model.ts';
import { interpretAnswer } from './interpret-answer.ts';
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
  const calls: Calls = { config: options.config, logger: options.logger, modelFor: modelCache(options), recordUsage: usageRecorder(options) };
  return {
    generate: (request) => generate(calls, request),
    converse: (request) => converse(calls, request),
    has: (role: LlmRole) => options.config.models[role] !== undefined,
  };
}

/** What every call needs: the routes and secrets, the adapters, and where usage goes. */
interface Calls {
  config: LlmClientOptions['config'];
  logger: Logger;
  modelFor(route: ModelRoute): ChatModel;
  recordUsage(usage: UsageRecord): Promise<void>;
}

/** One adapter per route for the client's life, so what it learns (JSON-mode fallback) sticks. */
function modelCache({ config, logger, timeoutMs, maxRetries, fetch }: LlmClientOptions): (route: ModelRoute) => ChatModel {
  const models = new Map<string, ChatModel>();
  return (route) => {
    const key = `${route.provider}:${route.model}`;
    let model = models.get(key);
    if (!model) {
      const common = { model: route.model, timeoutMs, maxRetries, fetch };
      model = loadedOnFirstCall(route, async () =>
        route.provider === 'openai'
          ? (await import('./openai-model.ts')).createOpenAiModel({ ...common, apiKey: config.openai.apiKey, baseURL: config.openai.baseUrl, logger })
          : (await import('./anthropic-model.ts')).createAnthropicModel({
              ...common,
              apiKey: config.anthropic.apiKey ?? '',
              baseURL: config.anthropic.baseUrl,
            }),
      );
      models.set(key, model);
    }
    return model;
  };
}

/**
 * An adapter whose vendor SDK is loaded on the route's first call: each SDK is tens of megabytes in
 * memory, and a bot waiting for its first mention needs neither.
 */
function loadedOnFirstCall(route: ModelRoute, load: () => Promise<ChatModel>): ChatModel {
  let loading: Promise<ChatModel> | undefined;
  const adapter = () => (loading ??= load());
  return {
    provider: route.provider,
    model: route.model,
    answer: async (request) => (await adapter()).answer(request),
    converse: async (request) => (await adapter()).converse(request),
  };
}

/** A usage record that cannot be stored is logged, never thrown: the answer was paid for and is still used. */
function usageRecorder({ onUsage, logger }: LlmClientOptions): (usage: UsageRecord) => Promise<void> {
  return async (usage) => {
    try {
      await onUsage(usage);
    } catch (error) {
      logger.warn({ err: error, role: usage.role, model: usage.model }, 'could not record model usage');
    }
  };
}

/** Runs `work` with the role's route; a model's failure (an LlmError) is logged with the role and run before it is thrown on. */
async function routed<R>(calls: Calls, request: { role: LlmRole; runId?: string | undefined }, work: (route: ModelRoute) => Promise<R>): Promise<R> {
  const route = calls.config.models[request.role];
  if (!route) throw new LlmError('not-configured', `No model is configured for the ${request.role}: ${NOT_CONFIGURED}.`);
  try {
    return await work(route);
  } catch (error) {
    if (error instanceof LlmError) calls.logger.warn({ role: request.role, model: route.model, kind: error.kind, runId: request.runId }, error.message);
    throw error;
  }
}

/** Prices an answer, records its usage against the run and logs it; returns the cost. */
async function meter(
  calls: Calls,
  request: { role: LlmRole; runId?: string | undefined },
  route: ModelRoute,
  answer: { kind: string; usage: LlmUsage },
  details: { startedAt: number; toolCalls?: number },
): Promise<number> {
  const cost = costUsd(route, answer.usage, calls.config.modelPrices);
  await calls.recordUsage({ runId: request.runId ?? null, role: request.role, provider: route.provider, model: route.model, ...answer.usage, costUsd: cost });
  calls.logger.debug(
    {
      role: request.role,
      model: route.model,
      ...answer.usage,
      costUsd: cost,
      ms: Date.now() - details.startedAt,
      outcome: answer.kind,
      ...(details.toolCalls === undefined ? {} : { toolCalls: details.toolCalls }),
    },
    'model answered',
  );
  return cost;
}

function generate<T>(calls: Calls, request: LlmRequest<T>): Promise<LlmResponse<T>> {
  return routed(calls, request, async (route) => {
    const redact = (text: string) => redactText(text, calls.config.secrets);
    const startedAt = Date.now();
    const answer = await calls.modelFor(route).answer({
      system: redact(request.system),
      messages: request.messages.map((message) => ({ role: message.role, content: redact(message.content) })),
      schema: request.schema,
      schemaName: request.schemaName,
      maxOutputTokens: request.maxOutputTokens,
      signal: request.signal,
    });
    const cost = await meter(calls, request, route, answer, { startedAt });
    const value = interpretAnswer(answer, {
      role: request.role,
      route,
      schema: request.schema,
      schemaName: request.schemaName,
      maxOutputTokens: request.maxOutputTokens,
      redact,
    });
    return { value, usage: answer.usage, provider: route.provider, model: route.model, costUsd: cost };
  });
}

function converse(calls: Calls, request: LlmToolRequest): Promise<LlmToolResponse> {
  return routed(calls, request, async (route) => {
    const redact = (text: string) => redactText(text, calls.config.secrets);
    const startedAt = Date.now();
    const answer = await calls.modelFor(route).converse({
      system: redact(request.system),
      messages: request.messages.map((turn) => redactTurn(turn, calls.config.secrets)),
      tools: request.tools,
      toolChoice: request.toolChoice ?? 'auto',
      maxOutputTokens: request.maxOutputTokens,
      signal: request.signal,
    });
    const cost = await meter(calls, request, route, answer, { startedAt, toolCalls: answer.toolCalls.length });
    const details = { provider: route.provider, model: route.model, raw: redact(answer.text) };
    if (answer.kind === 'refused')
      throw new LlmError('refusal', `The ${request.role} model (${route.model}) declined to answer: ${redact(answer.text).slice(0, 200)}`, details);
    if (answer.kind === 'truncated')
      throw new LlmError('max-tokens', `The ${request.role} model (${route.model}) used up its output limit before finishing its turn.`, details);
    return { text: answer.text, toolCalls: answer.toolCalls, usage: answer.usage, provider: route.provider, model: route.model, costUsd: cost };
  });
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
