import { eq, sql } from 'drizzle-orm';
import type { ModelUsage, UsageRecord } from '../../agent/ports/run-store.ts';
import { builtOnce } from '../engine/built-once.ts';
import type { Db } from '../database.ts';
import { llmUsage } from '../schema.ts';

export async function insertUsage(db: Db, usage: UsageRecord): Promise<void> {
  await db.insert(llmUsage).values(usage);
}

const usageOfRun = builtOnce((db) =>
  db
    .select({
      inputTokens: sql<number>`coalesce(sum(${llmUsage.inputTokens}), 0)::int`,
      outputTokens: sql<number>`coalesce(sum(${llmUsage.outputTokens}), 0)::int`,
      costUsd: sql<number>`coalesce(sum(${llmUsage.costUsd}), 0)::float8`,
    })
    .from(llmUsage)
    .where(eq(llmUsage.runId, sql.placeholder('runId')))
    .prepare('usage_of_run'),
);

export async function sumUsage(db: Db, runId: string): Promise<{ inputTokens: number; outputTokens: number; costUsd: number }> {
  const [row] = await usageOfRun(db).execute({ runId });
  return { inputTokens: Number(row?.inputTokens ?? 0), outputTokens: Number(row?.outputTokens ?? 0), costUsd: Number(row?.costUsd ?? 0) };
}

export async function sumUsageByModel(db: Db, runId: string): Promise<ModelUsage[]> {
  const rows = await db
    .select({
      role: llmUsage.role,
      provider: llmUsage.provider,
      model: llmUsage.model,
      inputTokens: sql<number>`coalesce(sum(${llmUsage.inputTokens}), 0)::int`,
      outputTokens: sql<number>`coalesce(sum(${llmUsage.outputTokens}), 0)::int`,
      costUsd: sql<number>`coalesce(sum(${llmUsage.costUsd}), 0)::float8`,
    })
    .from(llmUsage)
    .where(eq(llmUsage.runId, runId))
    .groupBy(llmUsage.role, llmUsage.provider, llmUsage.model);
  return modelUsage(rows);
}

/** Usage rows grouped by role, provider and model, as the summary shows them: largest cost first. */
export function modelUsage(
  rows: readonly { role: string; provider: string; model: string; inputTokens: number; outputTokens: number; costUsd: number }[],
): ModelUsage[] {
  return rows
    .map((row) => ({
      role: row.role,
      model: `${row.provider}:${row.model}`,
      inputTokens: Number(row.inputTokens),
      outputTokens: Number(row.outputTokens),
      costUsd: Number(row.costUsd),
    }))
    .sort((a, b) => b.costUsd - a.costUsd || a.role.localeCompare(b.role) || a.model.localeCompare(b.model));
}
