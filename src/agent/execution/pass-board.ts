/**
 * The board one execution pass draws in the thread: its step records with progress notes in place of a
 * missing error, redrawn at most once per turn of the event loop (a burst of claims draws once), and
 * never once the run moved on to another replica. Lines of records that did not change are reused.
 */
import { buildBoard, type BoardLines } from '../delivery/board.ts';
import type { Plan } from '../model/plan/plan.ts';
import type { RunRecord, StepRecord } from '../ports/run-store.ts';
import type { Surface } from '../ports/surface.ts';

export interface PassBoardSource {
  run: RunRecord;
  version: number;
  plan: Plan;
  records(): Iterable<StepRecord>;
  now(): Date;
  /** The run moved on elsewhere: the board is another replica's to write. */
  superseded(): boolean;
}

export class PassBoard {
  private readonly notes = new Map<string, string>();
  /** Board lines of records that did not change since the last report (see BoardLines). */
  private readonly drawn: BoardLines = new WeakMap();
  private reportDue: ReturnType<typeof setImmediate> | null = null;

  constructor(
    private readonly surface: Pick<Surface, 'reportProgress'>,
    private readonly source: PassBoardSource,
  ) {}

  /** A step's progress note (shown until it has an error of its own). */
  note(stepId: string, note: string): void {
    this.notes.set(stepId, note);
  }

  /**
   * Shows the board once the changes of this turn are in, after the tools they start were called: a claim
   * redraws the whole board, which need not sit between a step's claim and its tool call.
   */
  reportSoon(): void {
    if (this.reportDue) return;
    this.reportDue = setImmediate(() => this.report());
  }

  /** Shows the board in the thread now. */
  report(): void {
    if (this.reportDue) clearImmediate(this.reportDue);
    this.reportDue = null;
    const { source, notes } = this;
    if (source.superseded()) return;
    const steps = [...source.records()].map((step) =>
      notes.has(step.stepId) && !step.error ? { ...step, error: { message: notes.get(step.stepId)! } } : step,
    );
    void this.surface.reportProgress(source.run, buildBoard(source.run, source.version, source.plan, steps, source.now(), this.drawn)).catch(() => undefined);
  }
}
