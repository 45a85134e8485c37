import { z } from 'zod';
import type { RecordedCall } from '../slack-fake/server.ts';
import type { FakeView, WorkspaceModel } from '../slack-fake/workspace-model.ts';

export interface OpenModal {
  id: string;
  hash: string;
  view: Record<string, unknown>;
  /** Field errors from the bot's last `response_action: errors`, by block id. */
  errors: Record<string, string>;
}

const SubmitAnswer = z.union([
  z.object({ response_action: z.literal('errors'), errors: z.record(z.string(), z.string()) }),
  z.object({ response_action: z.enum(['update', 'push']), view: z.record(z.string(), z.unknown()) }),
  z.object({ response_action: z.literal('clear') }),
]);

/**
 * The one modal the local person has open, as Slack's client keeps it: opened by views.open with a
 * trigger from their click, refreshed by views.update, closed when a submission is acked plainly.
 */
export class ModalSession {
  private openId: string | undefined;
  private errors: Record<string, string> = {};

  constructor(
    private readonly model: WorkspaceModel,
    /** Whose modals are shown: the person the page acts as now. */
    private readonly userId: () => string,
  ) {}

  /** Follows the bot's view calls; returns true when what the person sees changed. */
  noteCall(call: RecordedCall): boolean {
    if (call.response?.ok !== true) return false;
    const id = (call.response.view as { id?: string } | undefined)?.id;
    if (call.method === 'views.open' && id && this.model.views.get(id)?.user === this.userId()) {
      this.openId = id;
      this.errors = {};
      return true;
    }
    if (call.method === 'views.update' && id && id === this.openId) {
      this.errors = {};
      return true;
    }
    return false;
  }

  get current(): OpenModal | undefined {
    const view = this.openView();
    return view ? { id: view.id, hash: view.hash, view: view.view, errors: this.errors } : undefined;
  }

  openView(id?: string): FakeView | undefined {
    if (!this.openId || (id !== undefined && id !== this.openId)) return undefined;
    return this.model.views.get(this.openId);
  }

  close(): void {
    this.openId = undefined;
    this.errors = {};
  }

  /** Applies the bot's answer to a submission: errors stay on the open modal, anything else closes or replaces it. */
  applySubmitAnswer(body: unknown): { closed: boolean; errors: Record<string, string> } {
    const answer = SubmitAnswer.safeParse(body);
    const view = this.openView();
    if (!answer.success || !view || answer.data.response_action === 'clear') {
      this.close();
      return { closed: true, errors: {} };
    }
    if (answer.data.response_action === 'errors') {
      this.errors = answer.data.errors;
      return { closed: false, errors: this.errors };
    }
    view.view = answer.data.view;
    view.hash = `${view.hash}+`;
    this.errors = {};
    return { closed: false, errors: {} };
  }
}
