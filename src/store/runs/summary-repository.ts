/**
 * What a run's summary is made of, in one statement: the run, its steps and plan versions, its usage
 * in total and by model, its last planner fallback and its checks' verdicts. And what its board is drawn
 * from, in one statement too: the run, its steps, the version that ran, and the verdicts. Each part is a
 * sub-select rendered as JSON, so the statement text is the same for every run and is prepared once.
 * Neither reads the run's whole event log: only the events of the types they use, which
 * `events_checks_idx` (a partial index of those types) finds without the rest.
 */
import { sql } from 'drizzle-orm';
import type { RunBoardSource, RunSummarySource } from '../../agent/ports/run-store.ts';
import { parseRunEvent, type RunEvent } from '../../agent/model/run-events.ts';
import type { Db } from '../database.ts';
import { fromRawPlan, type RawPlanRow } from '../plans/plans-repository.ts';
import { preparedRows } from '../engine/prepared-rows.ts';
import { asDate } from '../engine/raw-rows.ts';
import { fromRawRun, type RawRunRow } from './run-rows.ts';
import { events, llmUsage, planVersions, runs, steps, targetConfirmations } from '../schema.ts';
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
  fallback: RawEvent | null;
  evaluations: RawEvent[];
  confirms_asked: boolean;
}

interface RawEvent {
  seq: number;
  type: string;
  data: unknown;
  at: string;
}

interface RawBoardSource {
  run: RawRunRow | null;
  steps: RawStepRow[];
  ran: RawPlanRow | null;
  evaluations: RawEvent[];
}

/** The run both sources read, given to each call. */
const theRun = sql.placeholder('runId');

/** Every step of the run, in `listSteps`' order. */
const stepsOfRun = sql`(select coalesce(json_agg(s order by s.plan_version, s.created_at, s.step_id), '[]'::json) from ${steps} s where s.run_id = ${theRun})`;

/** The run's `step-evaluated` events in order; the type is written out so the partial index's predicate matches. */
const evaluationsOfRun = sql`(select coalesce(json_agg(e order by e.seq), '[]'::json) from (
      select seq, type, data, at from ${events} where run_id = ${theRun} and type = 'step-evaluated') e)`;

const eventOf = (runId: string, raw: RawEvent): RunEvent => parseRunEvent({ runId, seq: Number(raw.seq), type: raw.type, data: raw.data, at: asDate(raw.at) });

const summarySource = preparedRows<RawSource>(
  'summary_source',
  sql`select
      (select row_to_json(r) from ${runs} r where r.id = ${theRun}) as run,
      ${stepsOfRun} as steps,
      (select coalesce(json_agg(v order by v.version), '[]'::json) from ${planVersions} v where v.run_id = ${theRun}) as versions,
      (select json_build_object(
          'input_tokens', coalesce(sum(input_tokens), 0)::int,
          'output_tokens', coalesce(sum(output_tokens), 0)::int,
          'cost_usd', coalesce(sum(cost_usd), 0)::float8)
        from ${llmUsage} where run_id = ${theRun}) as totals,
      (select coalesce(json_agg(u), '[]'::json) from (
          select role, provider, model, coalesce(sum(input_tokens), 0)::int as input_tokens,
            coalesce(sum(output_tokens), 0)::int as output_tokens, coalesce(sum(cost_usd), 0)::float8 as cost_usd
          from ${llmUsage} where run_id = ${theRun} group by role, provider, model) u) as by_model,
      (select row_to_json(e) from (
          select seq, type, data, at from ${events} where run_id = ${theRun} and type = 'planner-fallback' order by seq desc limit 1) e) as fallback,
      ${evaluationsOfRun} as evaluations,
      exists(select 1 from ${targetConfirmations} where run_id = ${theRun}) as confirms_asked`,
);

export async function selectSummarySource(db: Db, runId: string): Promise<RunSummarySource | undefined> {
  const [row] = await summarySource(db, { runId });
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
    lastFallback: fallback ? eventOf(runId, fallback) : null,
    evaluations: row.evaluations.map((raw) => eventOf(runId, raw)),
    confirmsAsked: row.confirms_asked === true,
  };
}

const boardSource = preparedRows<RawBoardSource>(
  'board_source',
  sql`select
      (select row_to_json(r) from ${runs} r where r.id = ${theRun}) as run,
      ${stepsOfRun} as steps,
      (select row_to_json(v) from ${planVersions} v where v.run_id = ${theRun} and v.version = (
          select max(plan_version) from ${steps} where run_id = ${theRun} and kind = 'forward')) as ran,
      ${evaluationsOfRun} as evaluations`,
);

export async function selectBoardSource(db: Db, runId: string): Promise<RunBoardSource | undefined> {
  const [row] = await boardSource(db, { runId });
  if (!row?.run) return undefined;
  return {
    run: fromRawRun(row.run),
    steps: row.steps.map(fromRawStep),
    ran: row.ran ? fromRawPlan(row.ran) : undefined,
    evaluations: row.evaluations.map((raw) => eventOf(runId, raw)),
  };
}
