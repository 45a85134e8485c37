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

/**
 * The one pump of owed messages in a process (decision 043). Every path that records what a run owes its thread
 * hands the run to it: finishing a run (its summary), an escalation, a step's question, a Confirm request, and the
 * sweeps that pick up what a dead peer or a failed delivery left owed. It resolves once what it claimed is posted
 * (or deferred, or left to a delivery of it already under way), so a caller that needs the message in the thread
 * first waits for it: an escalation's board links the message's permalink, and a step's question or Confirm is
 * posted before the step's outcome goes back to its pass.
 */
export interface OwedPump {
  /** Delivers what one run owes, in order; the caller recorded it moments ago (or holds the run). */
  deliver(runId: string): Promise<void>;
  /** Delivers what other replicas, or this store's previous process (`startUp`), left owed. */
  sweep(options: { startUp: boolean }): Promise<void>;
}

/** The run's thread: the two surfaces, the one writer of its board, and the one pump of what it is owed. */
export interface RunThread extends ThreadSurfaces {
  boards: RunBoards;
  owed: OwedPump;
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
