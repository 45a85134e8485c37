export { createLlmClient } from './llm-client.ts';
