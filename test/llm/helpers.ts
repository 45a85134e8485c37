import { createServer } from 'node:net';
import { z } from 'zod';
import type { LlmRequest } from '../../src/agent/ports/llm.ts';
import type { UsageRecord } from '../../src/agent/ports/run-store.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createLlmClient } from '../../src/integrations/llm/index.ts';
import { createLogger } from '../../src/observability/logger.ts';

/** A planner-like answer that follows the strict structured-output rules (all required, nullable). */
export const TriageSchema = z.object({
  goal: z.string(),
  confidence: z.number().min(0).max(1),
  steps: z.array(z.object({ id: z.string(), tool: z.string(), note: z.string().nullable() })),
});
export type Triage = z.infer<typeof TriageSchema>;

export const triage: Triage = {
  goal: 'Find why the deploy workflow failed',
  confidence: 0.8,
  steps: [{ id: 's1', tool: 'github_list_workflow_runs', note: null }],
};

export function triageRequest(overrides: Partial<LlmRequest<Triage>> = {}): LlmRequest<Triage> {
  return {
    role: 'planner',
    system: 'You plan chat-ops tasks.',
    messages: [{ role: 'user', content: 'Why did the last deploy of acme/web fail?' }],
    schema: TriageSchema,
    schemaName: 'triage_plan',
    runId: 'run-1',
    ...overrides,
  };
}

/** A client over loadConfig(env) with small timeouts; its usage records and log lines are kept for assertions. */
export function clientFor(env: Record<string, string>, limits: { timeoutMs?: number; maxRetries?: number } = {}) {
  const usage: UsageRecord[] = [];
  const logLines: string[] = [];
  const config = loadConfig(env);
  const logger = createLogger({ level: 'debug', secrets: config.secrets, destination: { write: (line: string) => void logLines.push(line) } });
  const client = createLlmClient({
    config,
    logger,
    onUsage: (record) => void usage.push(record),
    timeoutMs: limits.timeoutMs ?? 2_000,
    maxRetries: limits.maxRetries ?? 1,
  });
  return { client, usage, logLines, config };
}

/** Runs `promise`, expecting it to reject, and returns the rejection. */
export async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail, but it succeeded');
}

/** A loopback port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
