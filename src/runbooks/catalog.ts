import type { Result } from '../agent/model/errors.ts';
import type { Plan } from '../agent/model/plan/plan.ts';
import type { NoteLog } from '../agent/ports/logger.ts';
import type { Risk } from '../agent/ports/tool.ts';
import { loadRunbookFiles, type RunbookProblem } from './load-runbooks.ts';
import { matchRunbook } from './match-runbook.ts';
import { isReadOnlyPlan } from './read-only.ts';
import type { Runbook } from './runbook.ts';
import type { RunbooksPort } from './runbooks-port.ts';
import { draftRunbook } from './save-as-runbook.ts';
import { similarPlans } from './similar-plans.ts';

export interface CatalogMatch {
  name: string;
  plan: Plan;
  params: Record<string, string>;
  /** True only when the runbook says so and every step's tool is read-only. */
  preApproved: boolean;
}

export interface SaveRunbookInput {
  runId: string;
  /** The person's marked values: { tag: "v2.4.0" } turns "v2.4.0" into {tag}. */
  params: Record<string, string>;
  createdBy: string;
  name?: string;
  preApproved?: boolean;
}

export interface RunbookCatalog {
  /** Synchronous, from the last load, so it fits the agent's RunbookMatcher; reload() refreshes it. */
  match(task: string): CatalogMatch | undefined;
  /** The closest successful past runs, for the planner to show the model as examples. */
  examples(task: string, k: number): Promise<{ task: string; plan: Plan }[]>;
  save(input: SaveRunbookInput): Promise<Result<Runbook>>;
  /** Removes a runbook saved from a run (file runbooks are removed by deleting the file). */
  remove(name: string): Promise<boolean>;
  list(): Runbook[];
  /** The file problems found by the last load: path and reason, for `tandem` and the logs. */
  problems(): RunbookProblem[];
  reload(): Promise<void>;
}

export interface CatalogOptions {
  /** Saved runbooks and past runs (src/store's createRunbooksStore). */
  store: RunbooksPort;
  /** The runbooks folder (TANDEM_RUNBOOKS_DIR). */
  dir: string;
  logger: NoteLog;
  /** The registry's risk lookup; without it no runbook is treated as pre-approved. */
  riskOf?: (tool: string) => Risk | undefined;
  /** How many recent successful runs examples() compares against. */
  exampleWindow?: number;
}

/** Loads file and stored runbooks once, then serves matches from memory. */
export async function createRunbookCatalog(options: CatalogOptions): Promise<RunbookCatalog> {
  const { store, logger } = options;
  const riskOf = options.riskOf ?? (() => undefined);
  let runbooks: Runbook[] = [];
  let problems: RunbookProblem[] = [];

  async function reload(): Promise<void> {
    const [files, stored] = await Promise.all([loadRunbookFiles(options.dir), store.listSaved()]);
    for (const problem of files.problems) logger.warn({ path: problem.path, reason: problem.reason }, 'runbook-file-invalid');
    const fileNames = new Set(files.runbooks.map((runbook) => runbook.name));
    for (const runbook of stored.filter((runbook) => fileNames.has(runbook.name))) {
      logger.warn({ name: runbook.name, storedSource: runbook.source }, 'runbook-name-clash: the file runbook wins over the saved one');
    }
    runbooks = [...files.runbooks, ...stored.filter((runbook) => !fileNames.has(runbook.name))];
    problems = files.problems;
  }

  await reload();

  return {
    match(task) {
      const found = matchRunbook(task, runbooks);
      if (!found) return undefined;
      const preApproved = found.runbook.preApproved && isReadOnlyPlan(found.plan, riskOf);
      if (found.runbook.preApproved && !preApproved) logger.warn({ name: found.runbook.name }, 'runbook-pre-approval-ignored: it has steps that are not read-only');
      return { name: found.runbook.name, plan: found.plan, params: found.params, preApproved };
    },
    async examples(task, k) {
      const past = await store.succeededRunPlans(options.exampleWindow ?? 200);
      return similarPlans(task, past, k).map(({ task: pastTask, plan }) => ({ task: pastTask, plan }));
    },
    async save(input) {
      const run = await store.runWithLastPlan(input.runId);
      if (!run) return { ok: false, error: `there is no run ${input.runId} with a plan` };
      if (run.status !== 'succeeded') return { ok: false, error: `only a run that succeeded can become a runbook; ${input.runId} is ${run.status}` };
      const draft = draftRunbook({ task: run.task, plan: run.plan, params: input.params, name: input.name });
      if (!draft.ok) return draft;
      if (runbooks.some((runbook) => runbook.name === draft.value.name)) return { ok: false, error: `a runbook named ${draft.value.name} already exists` };
      const saved = await store.save({ ...draft.value, source: `run:${input.runId}`, preApproved: input.preApproved ?? false, createdBy: input.createdBy });
      if (saved.ok) {
        logger.info({ name: saved.value.name, runId: input.runId, pattern: saved.value.pattern }, 'runbook-saved');
        await reload();
      }
      return saved;
    },
    async remove(name) {
      const removed = await store.remove(name);
      if (removed) await reload();
      return removed;
    },
    list: () => [...runbooks],
    problems: () => [...problems],
    reload,
  };
}
