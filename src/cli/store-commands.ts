import { planDigest } from '../agent/model/plan/plan-digest.ts';
import { createRunStore, listFeedback, pruneFinishedRuns } from '../store/index.ts';
import { formatRunDetail, formatRunList } from './format-run.ts';
import { UsageError } from './usage-error.ts';
import type { StoreCommandContext } from './command-io.ts';

export async function migrateCommand({ config, io, openDatabase }: StoreCommandContext): Promise<number> {
  const database = await openDatabase();
  await database.close();
  io.out(`migrations applied (${database.engine}${config.database.url ? '' : ` in ${config.database.dataDir}`})\n`);
  return 0;
}

export async function runsCommand({ io, openDatabase }: StoreCommandContext, limit: number): Promise<number> {
  const database = await openDatabase();
  try {
    const runs = await createRunStore(database.db).listRuns({ limit });
    io.out(runs.length ? `${formatRunList(runs)}\n` : 'no runs yet\n');
    return 0;
  } finally {
    await database.close();
  }
}

export async function showCommand({ io, openDatabase }: StoreCommandContext, runId: string | undefined): Promise<number> {
  if (!runId) throw new UsageError('show: expected a run id, e.g. tandem show run_0abc123');
  const database = await openDatabase();
  try {
    const store = createRunStore(database.db);
    const run = await store.getRun(runId);
    if (!run) {
      io.err(`tandem: no run with id ${runId}. List them with: tandem runs\n`);
      return 1;
    }
    const [versions, approvals, steps, attempts, escalations, questions, events, usage] = await Promise.all([
      store.listPlanVersions(runId),
      store.listApprovals(runId),
      store.listSteps(runId),
      store.listAttempts(runId),
      store.listEscalations(runId),
      store.listQuestions(runId),
      store.listEvents(runId),
      store.usageTotals(runId),
    ]);
    const feedback = await listFeedback(database.db, runId);
    const digests = new Map(await Promise.all(versions.map(async (version) => [version.version, await planDigest(version.plan)] as const)));
    io.out(`${formatRunDetail({ run, versions, approvals, steps, attempts, escalations, questions, events, usage, feedback, digests })}\n`);
    return 0;
  } finally {
    await database.close();
  }
}

export async function pruneCommand({ io, openDatabase }: StoreCommandContext, before: Date): Promise<number> {
  const database = await openDatabase();
  try {
    const pruned = await pruneFinishedRuns(database.db, before);
    io.out(
      `pruned ${pruned.runs} run(s) that finished before ${before.toISOString()}: ${pruned.events} events, ${pruned.outputs} step outputs, ${pruned.messages} delivered messages removed; plans, approvals and steps kept for tandem audit\n`,
    );
    return 0;
  } finally {
    await database.close();
  }
}
