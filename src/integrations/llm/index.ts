export { createLlmClient, type LlmClientOptions } from './llm-client.ts';
export { createOpenAiModel, type OpenAiModelOptions } from './openai-model.ts';
export { createAnthropicModel, type AnthropicModelOptions } from './anthropic-model.ts';
export type { ChatModel, ChatModelAnswer, ChatModelRequest } from './chat-model.ts';
export { BUILT_IN_PRICES, costUsd, priceOf, type ModelPrice } from './prices.ts';
