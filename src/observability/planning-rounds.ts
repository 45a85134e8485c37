import type { RunEvent } from '../agent/model/run-events.ts';

/** One round of planning: from what asked for a plan to the version it proposed (undefined author: none came). */
export interface PlanningRound {
  version: number;
  authorKind: 'planner' | 'human' | 'runbook' | undefined;
  trigger: string;
  startedAt: Date;
  endedAt: Date;
}

/**
 * The run's planning rounds, read from its event log: a round opens at the run's creation, a replan,
 * a requested revision, an edit, or an answer to the plan's own questions, and closes when a version is
 * proposed. A round still open when the run ended (the planner failed) closes with the run.
 */
export function planningRounds(events: readonly RunEvent[], run: { createdAt: Date; endedAt: Date }): PlanningRound[] {
  const rounds: PlanningRound[] = [];
  // The first round opens with the run, whether or not its creation was logged.
  let open: { trigger: string; at: Date } | undefined = { trigger: 'run-created', at: run.createdAt };
  let lastVersion = 0;
  for (const event of events) {
    const trigger = triggerOf(event);
    if (trigger && !open) open = { trigger, at: event.at };
    if (event.type === 'plan-proposed') {
      rounds.push({
        version: event.data.version,
        authorKind: event.data.authorKind,
        trigger: open?.trigger ?? 'unknown',
        startedAt: open?.at ?? event.at,
        endedAt: event.at,
      });
      lastVersion = Math.max(lastVersion, event.data.version);
      open = undefined;
    }
  }
  if (open) rounds.push({ version: lastVersion + 1, authorKind: undefined, trigger: open.trigger, startedAt: open.at, endedAt: run.endedAt });
  return rounds;
}

function triggerOf(event: RunEvent): string | undefined {
  switch (event.type) {
    case 'run-created':
    case 'replan-started':
    case 'revision-requested':
    case 'plan-edit-started':
      return event.type;
    case 'question-answered':
      // A step's question (ask_human) is answered inside a step; the plan's own questions are planned again.
      return event.data.stepId === null ? event.type : undefined;
    default:
      return undefined;
  }
}
