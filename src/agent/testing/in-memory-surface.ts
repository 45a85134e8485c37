/** A Surface for tests and the CLI: it records what a person would see, in order. */
import type { Text } from '../text/text.ts';
import type { ConfirmationRecord, EscalationRecord, RunRecord } from '../ports/run-store.ts';
import type { AskedQuestion, BoardState, ClosedEscalation, Delivery, EscalationOffer, ProposedPlan, RunSummary, Surface } from '../ports/surface.ts';

export type SeenMessage =
  | { kind: 'planning'; runId: string }
  | { kind: 'plan'; runId: string; proposal: ProposedPlan }
  | { kind: 'questions'; runId: string; questions: string[] }
  | { kind: 'escalation'; runId: string; escalation: EscalationRecord; offer: EscalationOffer }
  | { kind: 'ask'; runId: string; stepId: string; question: string }
  | { kind: 'confirm'; runId: string; confirmation: ConfirmationRecord }
  | { kind: 'notice'; runId: string; text: Text }
  | { kind: 'approval-progress'; runId: string; planVersion: number; lines: string[] }
  | { kind: 'closed'; runId: string; escalationIds: string[]; closedBy: Text }
  /** Every copy of an expired Confirm lost its buttons and says `why` (the Slack surface rewrites them in place). */
  | { kind: 'confirm-expired'; runId: string; confirmation: ConfirmationRecord; why: Text }
  /** Every copy of an expired escalation (a failed undo) lost its buttons and says `why`. */
  | { kind: 'escalation-expired'; runId: string; escalationId: string; why: Text }
  | { kind: 'summary'; runId: string; summary: RunSummary };

export class InMemorySurface implements Surface {
  readonly messages: SeenMessage[] = [];
  /** The board as it stands, per run (a status board is edited in place). */
  readonly boards = new Map<string, BoardState>();
  readonly boardUpdates = new Map<string, number>();
  /** Keys of owed messages that reached the "thread", as a real surface finds them by metadata. */
  private readonly delivered = new Set<string>();

  async planning(run: RunRecord): Promise<void> {
    this.messages.push({ kind: 'planning', runId: run.id });
  }
  async proposePlan(proposal: ProposedPlan): Promise<void> {
    this.messages.push({ kind: 'plan', runId: proposal.run.id, proposal: structuredClone(proposal) });
  }
  async askRequester(run: RunRecord, questions: string[], _asked?: AskedQuestion, delivery?: Delivery): Promise<void> {
    if (this.seen(delivery)) return;
    this.messages.push({ kind: 'questions', runId: run.id, questions: [...questions] });
  }
  async reportProgress(run: RunRecord, board: BoardState): Promise<void> {
    this.boards.set(run.id, structuredClone(board));
    this.boardUpdates.set(run.id, (this.boardUpdates.get(run.id) ?? 0) + 1);
  }
  async escalate(run: RunRecord, escalation: EscalationRecord, offer: EscalationOffer, delivery?: Delivery): Promise<void> {
    if (this.seen(delivery)) return;
    this.messages.push({ kind: 'escalation', runId: run.id, escalation: structuredClone(escalation), offer: structuredClone(offer) });
  }
  async ask(run: RunRecord, stepId: string, question: string, delivery?: Delivery): Promise<void> {
    if (this.seen(delivery)) return;
    this.messages.push({ kind: 'ask', runId: run.id, stepId, question });
  }
  async confirmTarget(run: RunRecord, confirmation: ConfirmationRecord, delivery?: Delivery): Promise<void> {
    if (this.seen(delivery)) return;
    this.messages.push({ kind: 'confirm', runId: run.id, confirmation: structuredClone(confirmation) });
  }
  async approvalProgress(run: RunRecord, planVersion: number, lines: readonly string[]): Promise<void> {
    this.messages.push({ kind: 'approval-progress', runId: run.id, planVersion, lines: [...lines] });
  }
  async notify(run: RunRecord, text: Text): Promise<void> {
    this.messages.push({ kind: 'notice', runId: run.id, text });
  }
  async escalationsClosed(run: RunRecord, closed: readonly ClosedEscalation[], closedBy: Text): Promise<void> {
    this.messages.push({ kind: 'closed', runId: run.id, escalationIds: closed.map((c) => c.escalation.id), closedBy });
  }
  async confirmExpired(run: RunRecord, confirmation: ConfirmationRecord, why: Text): Promise<void> {
    this.messages.push({ kind: 'confirm-expired', runId: run.id, confirmation: structuredClone(confirmation), why });
  }
  async escalationExpired(run: RunRecord, escalation: EscalationRecord, why: Text): Promise<void> {
    this.messages.push({ kind: 'escalation-expired', runId: run.id, escalationId: escalation.id, why });
  }
  async finish(summary: RunSummary, delivery?: Delivery): Promise<void> {
    if (this.seen(delivery)) return;
    this.messages.push({ kind: 'summary', runId: summary.run.id, summary: structuredClone(summary) });
  }

  /** True for an owed message that already reached the "thread" (a redelivery); notes a first delivery. */
  private seen(delivery: Delivery | undefined): boolean {
    if (!delivery) return false;
    if (delivery.mayExist && this.delivered.has(delivery.key)) return true;
    this.delivered.add(delivery.key);
    return false;
  }

  of<K extends SeenMessage['kind']>(runId: string, kind: K): Extract<SeenMessage, { kind: K }>[] {
    return this.messages.filter((m): m is Extract<SeenMessage, { kind: K }> => m.runId === runId && m.kind === kind);
  }
}
