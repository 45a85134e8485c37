/**
 * The AgentContext every part of the agent is handed: the dependencies as the agent uses them (a
 * redacting store, a surface that cannot throw into a run), this replica's leases, and the effects runner
 * that alone reaches this process's drivers and background work.
 */
import type { BackgroundWork } from './replicas/background-work.ts';
import type { AgentContext, AgentDeps } from './context.ts';
import { redactingStore } from './redacting-store.ts';
import type { RunDrivers } from './replicas/run-drivers.ts';
import { createRunLeases, DEFAULT_REPLICA_SETTINGS } from './replicas/run-leases.ts';
import { safeSurface } from './delivery/safe-surface.ts';
import { createToolRegistry } from './model/tool-registry.ts';
import { createEffectsRunner } from './effects-runner.ts';
import { versionApprovals } from './decisions/version-approval.ts';

export function createAgentContext(deps: AgentDeps, drivers: RunDrivers, work: BackgroundWork): AgentContext {
  const store = redactingStore(deps.store, deps.settings.secrets);
  const tools = createToolRegistry(deps.tools);
  const ctx: AgentContext = {
    store,
    config: {
      settings: deps.settings,
      policy: deps.policy,
      tools,
      approvals: versionApprovals({ store, config: { policy: deps.policy, tools } }),
    },
    models: {
      llm: deps.llm,
      usage: (runId, role) => async (response) => {
        if (deps.usageRecordedByLlm) return;
        await ctx.store.recordUsage({
          runId,
          role,
          provider: response.provider,
          model: response.model,
          inputTokens: response.usage.inputTokens,
          outputTokens: response.usage.outputTokens,
          costUsd: response.costUsd,
        });
      },
      runbooks: deps.runbooks,
    },
    thread: { surface: safeSurface(deps.surface, deps.logger), deliverySurface: deps.surface },
    replica: {
      owner: deps.owner,
      soleOwner: deps.soleOwner ?? false,
      leases: createRunLeases({
        store: deps.store,
        owner: deps.owner,
        soleOwner: deps.soleOwner ?? false,
        settings: { ...DEFAULT_REPLICA_SETTINGS, ...deps.replicas },
        logger: deps.logger,
        onLost: (runId) => drivers.abandon(runId),
      }),
    },
    logger: deps.logger,
    now: deps.clock ?? (() => new Date()),
    effects: createEffectsRunner(drivers, work, () => ctx),
  };
  return ctx;
}
