/**
 * Where each waiting step's message is (an escalation, a question, a Confirm), as a permalink, so the
 * board's card for that step links to it. Kept by the process that posted the message: after a restart
 * a board has no link until the message is posted again (a reminder), and says the question is in the
 * thread instead.
 */
import type { SlackClient } from './slack-client.ts';

export class WaitLinks {
  private readonly links = new Map<string, Map<string, string>>();

  constructor(private readonly client: SlackClient) {}

  /** The message at `ts` is what step `stepId` of version `planVersion` waits on. Best effort: no permalink, no link. */
  async posted(input: { runId: string; planVersion: number | null; stepId: string; channel: string; ts: string }): Promise<void> {
    const permalink = await this.client.chat
      .getPermalink({ channel: input.channel, message_ts: input.ts })
      .then((answer) => answer.permalink)
      .catch(() => undefined);
    if (!permalink) return;
    const key = `${input.runId}/v${input.planVersion ?? 0}`;
    const steps = this.links.get(key) ?? new Map<string, string>();
    steps.set(input.stepId, permalink);
    this.links.set(key, steps);
  }

  /** The links of one board: by step id, for the version it draws. */
  forBoard(runId: string, planVersion: number): ReadonlyMap<string, string> {
    return this.links.get(`${runId}/v${planVersion}`) ?? new Map();
  }

  /** The run ended: nothing waits any more. */
  forget(runId: string): void {
    for (const key of [...this.links.keys()]) if (key.startsWith(`${runId}/`)) this.links.delete(key);
  }
}
