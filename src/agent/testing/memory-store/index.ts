/**
 * The agent's RunStore in memory, for unit tests: the same compare-and-set semantics as the store on
 * PostgreSQL and PGlite (src/store), checked by the same contract suite (test/store/run-store.contract.test.ts).
 * Nothing is durable and there is one "connection": it is for tests of the agent's behaviour, never for
 * durability, SQL or concurrency between processes. Only tests import it (.dependency-cruiser.cjs).
 */
import type { RunStore } from '../../ports/run-store.ts';
import { memoryDecisions } from './decisions.ts';
import { memoryEvents } from './events.ts';
import { memoryHumanInput } from './human-input.ts';
import { memoryLeases } from './leases.ts';
import { memoryOpenings } from './openings.ts';
import { memoryOutbox } from './outbox.ts';
import { memoryPlanVersions } from './plans.ts';
import { memoryRuns } from './runs.ts';
import { memorySteps } from './steps.ts';
import { memorySummary } from './summary.ts';
import { MemoryTables } from './tables.ts';
import { memoryUsage } from './usage.ts';

/** `onRunMove`: told of every change of a run's status (tests of the run-status table). */
export function createMemoryRunStore(options: { onRunMove?: MemoryTables['onRunMove'] } = {}): RunStore {
  const tables = new MemoryTables();
  tables.onRunMove = options.onRunMove;
  const ports = {
    ...memoryRuns(tables),
    ...memoryOutbox(tables),
    ...memoryLeases(tables),
    ...memoryPlanVersions(tables),
    ...memoryDecisions(tables),
    ...memorySteps(tables),
    ...memoryEvents(tables),
    ...memoryHumanInput(tables),
    ...memoryUsage(tables),
  };
  return { ...ports, ...memorySummary(tables, ports), ...memoryOpenings(ports) };
}
