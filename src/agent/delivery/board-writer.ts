/**
 * The one writer of a run's board (the status message in its thread): every other part says the board changed,
 * and this module draws it and hands it to the surface. Two sources, one path:
 * - from the store (`changed`): after an escalation, a pause, a replan proposed, a rollback step, the run's end.
 *   Draws of one run read one after another, and a change noted while one reads joins one more draw after it,
 *   so the boards reach the surface in the order their reads began, and the last one read after the last change.
 * - from a live execution pass (`live`): the pass's mirror of its step records, with its progress notes, redrawn
 *   at most once per turn of the event loop and never once the run moved on to another replica.
 * The surface keeps the latest board it was handed (the Slack surface publishes it at its own pace).
 */
import { buildBoard, readBoard, type BoardLines, type BoardReads } from './board.ts';
import type { Plan } from '../model/plan/plan.ts';
import type { RunRecord, StepRecord } from '../ports/run-store.ts';
import type { Surface } from '../ports/surface.ts';

/** What a live pass shows: its run and version, and its records as they are now. */
export interface LiveBoardSource {
  run: RunRecord;
  version: number;
  plan: Plan;
  records(): Iterable<StepRecord>;
  /** The run moved on elsewhere: the board is another replica's to write. */
  superseded(): boolean;
}

/** A live pass's board. */
export interface LiveBoard {
  /** A step's progress note (shown until it has an error of its own). */
  note(stepId: string, note: string): void;
  /**
   * Shows the board once the changes of this turn are in, after the tools they start were called: a claim
   * redraws the whole board, which need not sit between a step's claim and its tool call.
   */
  reportSoon(): void;
  /** Shows the board now. */
  report(): void;
}

export interface RunBoards {
  /**
   * The run's board changed: draw it from the store. Resolves once the surface took a board read after this
   * call (its failures are the surface's to log); rejects if the store cannot be read.
   */
  changed(runId: string, read?: RunRecord): Promise<void>;
  /** The board of a pass that holds the run's live state: drawn from its mirror, not the store. */
  live(source: LiveBoardSource): LiveBoard;
}

/** One run's draws from the store: the one reading, and the one queued behind it. */
interface RunDraws {
  /** Settles once the draw under way handed its board to the surface (or found none). */
  handing: Promise<void>;
  /** The one draw queued behind it, which every change noted meanwhile joins; resolves once it is published. */
  queued?: Promise<void>;
}

export function createBoardWriter(ctx: BoardReads & { surface: Pick<Surface, 'reportProgress'> }): RunBoards {
  const draws = new Map<string, RunDraws>();

  /** Reads the board and hands it to the surface; `handing` settles at the hand-over, the result once published. */
  const draw = (runId: string, read: RunRecord | undefined, entry: RunDraws): Promise<void> => {
    const drawn = readBoard(ctx, runId, read);
    entry.handing = drawn.then(
      () => undefined,
      () => undefined,
    );
    // Attached before any queued draw's continuation: a run with nothing queued leaves the map.
    void entry.handing.then(() => {
      if (!entry.queued && draws.get(runId) === entry) draws.delete(runId);
    });
    return drawn.then((found) => (found ? ctx.surface.reportProgress(found.run, found.board) : undefined));
  };

  return {
    changed(runId, read) {
      const entry = draws.get(runId);
      if (entry?.queued) return entry.queued;
      if (entry) {
        // A draw is reading what may predate this change: one more after it, reading the run afresh.
        const queued = entry.handing.then(() => {
          entry.queued = undefined;
          return draw(runId, undefined, entry);
        });
        entry.queued = queued;
        return queued;
      }
      const fresh: RunDraws = { handing: Promise.resolve() };
      draws.set(runId, fresh);
      return draw(runId, read, fresh);
    },
    live: (source) => liveBoard(ctx, source),
  };
}

function liveBoard(ctx: { surface: Pick<Surface, 'reportProgress'>; now(): Date }, source: LiveBoardSource): LiveBoard {
  const notes = new Map<string, string>();
  /** Board lines of records that did not change since the last report (see BoardLines). */
  const drawn: BoardLines = new WeakMap();
  let reportDue: ReturnType<typeof setImmediate> | null = null;
  const board: LiveBoard = {
    note: (stepId, note) => void notes.set(stepId, note),
    reportSoon() {
      reportDue ??= setImmediate(() => board.report());
    },
    report() {
      if (reportDue) clearImmediate(reportDue);
      reportDue = null;
      if (source.superseded()) return;
      const steps = [...source.records()].map((step) =>
        notes.has(step.stepId) && !step.error ? { ...step, error: { message: notes.get(step.stepId)! } } : step,
      );
      void ctx.surface.reportProgress(source.run, buildBoard(source.run, source.version, source.plan, steps, ctx.now(), drawn)).catch(() => undefined);
    },
  };
  return board;
}
