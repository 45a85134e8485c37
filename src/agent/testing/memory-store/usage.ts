/** UsagePort in memory: usage-repository.ts. */
import type { ModelUsage, UsagePort, UsageRecord } from '../../ports/usage.ts';
import { text, type MemoryTables } from './tables.ts';

const sum = (rows: readonly UsageRecord[]) => ({
  inputTokens: rows.reduce((total, row) => total + row.inputTokens, 0),
  outputTokens: rows.reduce((total, row) => total + row.outputTokens, 0),
  costUsd: rows.reduce((total, row) => total + row.costUsd, 0),
});

/** Per role and `provider:model`, largest cost first (as modelUsage orders them). */
function byModel(rows: readonly UsageRecord[]): ModelUsage[] {
  const groups = new Map<string, UsageRecord[]>();
  for (const row of rows) {
    const key = JSON.stringify([row.role, row.provider, row.model]);
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  return [...groups.values()]
    .map((group) => ({ role: group[0]!.role, model: `${group[0]!.provider}:${group[0]!.model}`, ...sum(group) }))
    .sort((a, b) => b.costUsd - a.costUsd || a.role.localeCompare(b.role) || a.model.localeCompare(b.model));
}

export function memoryUsage(tables: MemoryTables): UsagePort {
  return {
    async recordUsage(usage) {
      if (usage.runId !== null) tables.runRow(usage.runId);
      tables.usage.push({ ...usage, role: text(usage.role), provider: text(usage.provider), model: text(usage.model) });
    },
    usageTotals: async (runId) => sum(tables.usage.filter((row) => row.runId === runId)),
    usageByModel: async (runId) => byModel(tables.usage.filter((row) => row.runId === runId)),
  };
}
