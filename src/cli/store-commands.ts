import { planDigest } from '../agent/model/plan/plan-digest.ts';
import type { Config } from '../config/config.ts';
import { createRunStore, listFeedback, pruneFinishedRuns } from '../store/index.ts';
import { openConfiguredDatabase } from '../runtime/open-database.ts';
import { formatRunDetail, formatRunList } from './format-run.ts';
import { UsageError } from './usage-error.ts';

export async function migrateCommand(config: Readonly<Config>): Promise<number> {
  const database = await openConfiguredDatabase(config);
  await database.close();
  process.stdout.write(`migrations applied (${database.engine}${config.database.url ? '' : ` in ${config.database.dataDir}`})\n`);
  return 0;
}

export async function runsCommand(config: Readonly<Config>, limit: number): Promise<number> {
  const database = await openConfiguredDatabase(config);
  try {
    const runs = await createRunStore(database.db).listRuns({ limit });
    process.stdout.write(runs.length ? `${formatRunList(runs)}\n` : 'no runs yet\n');
    return 0;
  } finally {
    await database.close();
  }
}

export async function showCommand(config: Readonly<Config>, runId: string | undefined): Promise<number> {
  if (!runId) throw new UsageError('show: expected a run id, e.g. tandem show run_0abc123');
  const database = await openConfiguredDatabase(config);
  try {
    const store = createRunStore(database.db);
    const run = await store.getRun(runId);
    if (!run) {
      process.stderr.write(`tandem: no run with id ${runId}. List them with: tandem runs\n`);
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
    process.stdout.write(`${formatRunDetail({ run, versions, approvals, steps, attempts, escalations, questions, events, usage, feedback, digests })}\n`);
    return 0;
  } finally {
    await database.close();
  }
}

export async function pruneCommand(config: Readonly<Config>, before: Date): Promise<number> {
  const database = await openConfiguredDatabase(config);
  try {
    const pruned = await pruneFinishedRuns(database.db, before);
    process.stdout.write(
      `pruned ${pruned.runs} run(s) that finished before ${before.toISOString()}: ${pruned.events} events, ${pruned.outputs} step outputs, ${pruned.messages} delivered messages removed; plans, approvals and steps kept for tandem audit\n`,
    );
    return 0;
  } finally {
    await database.close();
  }
}
