/**
 * The calls a tool makes through other tools (agent_task's loop), run the way a plan step runs its
 * tool: args checked against the tool's schema, bounded by the step's timeout and the run's signal,
 * transient errors retried, the output redacted and cut to size. Each call is stored as an
 * `agent-call` event of the step before its result goes anywhere, so a restart loses none.
 */
import type { AgentContext } from '../../context.ts';
import type { EventLog } from '../../delivery/event-log.ts';
import { limitOutput } from '../../text/output-limit.ts';
import type { InnerCallResult, InnerTools, ToolContext } from '../../ports/tool.ts';
import { redactValue } from '../../text/redact.ts';
import { repositoryRefusal } from '../../model/repository-allow-list.ts';
import { stepTimeoutMs } from '../../model/budgets.ts';
import { callTool } from './tool-call.ts';
import { plainText } from '../../text/text.ts';

export interface InnerCallScope {
  runId: string;
  planVersion: number;
  stepId: string;
  attempt: number;
  signal: AbortSignal;
  events: EventLog;
  /** The outer call's context, less what an inner call must not have (its own inner tools). */
  toolContext: Omit<ToolContext, 'signal' | 'innerTools'>;
}

export function createInnerTools(ctx: Pick<AgentContext, 'config' | 'store'>, scope: InnerCallScope): InnerTools {
  const secrets = ctx.config.settings.secrets;
  const where = { planVersion: scope.planVersion, stepId: scope.stepId, attempt: scope.attempt };
  const record = async (fact: {
    index: number;
    tool: string;
    args: unknown;
    ok: boolean;
    refused?: string;
    error?: string;
    output?: Record<string, unknown>;
  }) => {
    scope.events.append('agent-call', redactValue({ ...where, ...fact }, secrets));
    await scope.events.flush();
  };

  async function call(request: { tool: string; args: unknown; index: number; signal?: AbortSignal }): Promise<InnerCallResult> {
    const base = { index: request.index, tool: request.tool, args: request.args };
    const tool = ctx.config.tools.get(request.tool);
    if (!tool || tool.risk !== 'read') {
      const reason = tool ? `${request.tool} is a ${tool.risk} tool; only read tools may be called here` : `there is no tool ${request.tool}`;
      await record({ ...base, ok: false, refused: reason });
      return { ok: false, error: `refused: ${reason}` };
    }
    const parsed = tool.input.safeParse(request.args);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const error = `invalid args: ${issue?.path.join('.') || 'args'}: ${issue?.message ?? 'do not fit the tool'}`;
      await record({ ...base, ok: false, error });
      return { ok: false, error };
    }
    // A model's args are never filled: reference syntax in them is text, and the allow-list judges them as they are.
    const refusal = repositoryRefusal(ctx.config.settings.repositories, tool, parsed.data as Record<string, unknown>, 'filled');
    if (refusal) {
      const reason = `${request.tool} ${refusal.at}: ${plainText(refusal.reason)}`;
      await record({ ...base, ok: false, refused: reason });
      return { ok: false, error: `refused: ${reason}` };
    }
    const retry = ctx.config.settings.retry ?? { retries: 3, baseDelayMs: 500 };
    const result = await callTool(tool, parsed.data, scope.toolContext, {
      timeoutMs: stepTimeoutMs(ctx.config.settings.budgets),
      // The outer call's signal carries its own step timeout: an inner call never outlives it.
      runSignal: request.signal ? AbortSignal.any([scope.signal, request.signal]) : scope.signal,
      retries: retry.retries,
      baseDelayMs: retry.baseDelayMs,
      onRetry: (error, attempt, delayMs) =>
        scope.events.append('agent-call-retried', { ...where, index: request.index, retry: attempt, delayMs, error: redactValue(error, secrets) }),
    });
    if (result.status === 'ok') {
      const output = limitOutput(result.output, secrets);
      await record({ ...base, args: parsed.data, ok: true, output });
      return { ok: true, output };
    }
    const error =
      result.status === 'pause' ? `${tool.name} waits for a person, which cannot happen inside this step` : redactValue(result.error.message, secrets);
    await record({ ...base, args: parsed.data, ok: false, error });
    return { ok: false, error };
  }

  return {
    describe: (name) => ctx.config.tools.entry(name),
    call,
    refuse: (request) => record({ index: request.index, tool: request.tool, args: request.args, ok: false, refused: request.reason }),
    async tokensLeft() {
      const used = await ctx.store.usageTotals(scope.runId);
      return ctx.config.settings.budgets.maxTokens - used.inputTokens - used.outputTokens;
    },
  };
}
