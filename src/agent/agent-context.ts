/**
 * The AgentContext every part of the agent is handed: the dependencies as the agent uses them (a
 * redacting store, a surface that cannot throw into a run), this replica's leases, and the effects runner
 * that alone reaches this process's drivers and background work.
 */
import type { BackgroundWork } from './replicas/background-work.ts';
import type { AgentContext, AgentDeps, AgentModels, ReplicaSelf } from './context.ts';
import type { RunStore } from './ports/run-store.ts';
import { redactingStore } from './redacting-store.ts';
import type { RunDrivers } from './replicas/run-drivers.ts';
import { createRunLeases, DEFAULT_REPLICA_SETTINGS } from './replicas/run-leases.ts';
import { safeSurface } from './delivery/safe-surface.ts';
import { createBoardWriter } from './delivery/board-writer.ts';
import { createOwedPump } from './delivery/owed-delivery.ts';
import { createToolRegistry } from './model/tool-registry.ts';
import { createEffectsRunner } from './effects-runner.ts';
import { versionApprovals } from './decisions/version-approval.ts';

export function createAgentContext(deps: AgentDeps, drivers: RunDrivers, work: BackgroundWork): AgentContext {
  const store = redactingStore(deps.store, deps.settings.secrets);
  const tools = createToolRegistry(deps.tools);
  const surface = safeSurface(deps.surface, deps.logger);
  const now = deps.clock ?? (() => new Date());
  const ctx: AgentContext = {
    store,
    config: { settings: deps.settings, policy: deps.policy, tools, approvals: versionApprovals({ store, config: { policy: deps.policy, tools } }) },
    models: { llm: deps.llm, usage: usageRecorder(deps, store), runbooks: deps.runbooks },
    thread: { surface, deliverySurface: deps.surface, boards: createBoardWriter({ store, surface, now }), owed: createOwedPump(() => ctx) },
    replica: replicaOf(deps, drivers),
    logger: deps.logger,
    now,
    effects: createEffectsRunner(drivers, work, () => ctx),
  };
  return ctx;
}

/** Records each paid model answer against its run, unless the LlmClient records them itself. */
function usageRecorder(deps: AgentDeps, store: RunStore): AgentModels['usage'] {
  return (runId, role) => async (response) => {
    if (deps.usageRecordedByLlm) return;
    await store.recordUsage({
      runId,
      role,
      provider: response.provider,
      model: response.model,
      inputTokens: response.usage.inputTokens,
      outputTokens: response.usage.outputTokens,
      costUsd: response.costUsd,
    });
  };
}

/** This replica and its run leases; a run lost to a peer is abandoned by its driver here. */
function replicaOf(deps: AgentDeps, drivers: RunDrivers): ReplicaSelf {
  const soleOwner = deps.soleOwner ?? false;
  const leases = createRunLeases({
    store: deps.store,
    owner: deps.owner,
    soleOwner,
    settings: { ...DEFAULT_REPLICA_SETTINGS, ...deps.replicas },
    logger: deps.logger,
    onLost: (runId) => drivers.abandon(runId),
  });
  return { owner: deps.owner, soleOwner, leases };
}
