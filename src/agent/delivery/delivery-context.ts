/**
 * What delivery uses of the agent, and nothing more: the store's runs, plans, steps, events, outbox and
 * human input, the two surfaces, a logger, this replica and a clock. The wiring passes its AgentContext,
 * which has all of these; delivery cannot reach a driver, a planner or a decision through it.
 */
import type { EventsPort } from '../ports/events.ts';
import type { HumanInputPort } from '../ports/human-input.ts';
import type { LogPort } from '../ports/logger.ts';
import type { OutboxPort } from '../ports/outbox.ts';
import type { PlansPort } from '../ports/plans.ts';
import type { RunsPort } from '../ports/runs.ts';
import type { StepsPort } from '../ports/steps.ts';
import type { ThreadSurfaces } from '../ports/surface.ts';
import type { RunBoards } from './board-writer.ts';

/** The run's thread: the two surfaces, and the one writer of its board. */
export interface RunThread extends ThreadSurfaces {
  boards: RunBoards;
}

export interface DeliveryContext {
  store: RunsPort & PlansPort & StepsPort & EventsPort & OutboxPort & HumanInputPort;
  /** The safe surface, the bare one for owed messages (a delivery that fails stays owed), and the board's writer. */
  thread: RunThread;
  logger: LogPort;
  /** This replica: its id, whether it has the store to itself (an owed message's lease is then always its own), and how long a failed delivery waits before it is tried again. */
  replica: { owner: string; soleOwner: boolean; leases: { readonly settings: { readonly owedRetryMs: number } } };
  now(): Date;
}
