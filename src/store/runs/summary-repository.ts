/**
 * What a run's summary is made of, in one statement: the run, its steps and plan versions, its usage
 * in total and by model, and its last planner fallback. Each part is a sub-select rendered as JSON, so
 * the statement text is the same for every run and is prepared once.
 */
import { sql } from 'drizzle-orm';
import type { RunSummarySource } from '../../agent/ports/run-store.ts';
import { parseRunEvent } from '../../agent/model/run-events.ts';
import type { Db } from '../database.ts';
import { fromRawPlan, type RawPlanRow } from '../plans/plans-repository.ts';
import { asDate, rawRows } from '../engine/raw-rows.ts';
import { fromRawRun, type RawRunRow } from './run-rows.ts';
import { events, llmUsage, planVersions, runs, steps } from '../schema.ts';
import { fromRawStep, type RawStepRow } from '../steps/step-rows.ts';
import { modelUsage } from './usage-repository.ts';

interface RawUsage {
  role: string;
  provider: string;
  model: string;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
}

interface RawSource {
  run: RawRunRow | null;
  steps: RawStepRow[];
  versions: RawPlanRow[];
  totals: { input_tokens: number; output_tokens: number; cost_usd: number };
  by_model: RawUsage[];
  fallback: { seq: number; type: string; data: unknown; at: string } | null;
}

export async function selectSummarySource(db: Db, runId: string): Promise<RunSummarySource | undefined> {
  const [row] = await rawRows<RawSource>(
    db,
    sql`select
      (select row_to_json(r) from ${runs} r where r.id = ${runId}) as run,
      (select coalesce(json_agg(s order by s.plan_version, s.created_at, s.step_id), '[]'::json) from ${steps} s where s.run_id = ${runId}) as steps,
      (select coalesce(json_agg(v order by v.version), '[]'::json) from ${planVersions} v where v.run_id = ${runId}) as versions,
      (select json_build_object(
          'input_tokens', coalesce(sum(input_tokens), 0)::int,
          'output_tokens', coalesce(sum(output_tokens), 0)::int,
          'cost_usd', coalesce(sum(cost_usd), 0)::float8)
        from ${llmUsage} where run_id = ${runId}) as totals,
      (select coalesce(json_agg(u), '[]'::json) from (
          select role, provider, model, coalesce(sum(input_tokens), 0)::int as input_tokens,
            coalesce(sum(output_tokens), 0)::int as output_tokens, coalesce(sum(cost_usd), 0)::float8 as cost_usd
          from ${llmUsage} where run_id = ${runId} group by role, provider, model) u) as by_model,
      (select row_to_json(e) from (
          select seq, type, data, at from ${events} where run_id = ${runId} and type = 'planner-fallback' order by seq desc limit 1) e) as fallback`,
  );
  if (!row?.run) return undefined;
  const { totals, fallback } = row;
  return {
    run: fromRawRun(row.run),
    steps: row.steps.map(fromRawStep),
    versions: row.versions.map(fromRawPlan),
    usage: { inputTokens: Number(totals.input_tokens), outputTokens: Number(totals.output_tokens), costUsd: Number(totals.cost_usd) },
    usageByModel: modelUsage(
      row.by_model.map((u) => ({
        role: u.role,
        provider: u.provider,
        model: u.model,
        inputTokens: u.input_tokens,
        outputTokens: u.output_tokens,
        costUsd: u.cost_usd,
      })),
    ),
    lastFallback: fallback ? parseRunEvent({ runId, seq: Number(fallback.seq), type: fallback.type, data: fallback.data, at: asDate(fallback.at) }) : null,
  };
}
