import type { App } from '@slack/bolt';
import { checkRequesterOrApprover, checkResolver } from '../../../agent/decisions/approval-policy.ts';
import type { PolicyGate } from '../../../agent/decisions/policy-approval.ts';
import type { RunRecord, RunStatus } from '../../../agent/ports/run-store.ts';
import type { BotDeps } from '../../bot-deps.ts';
import { describeError } from '../../surface/replies.ts';
import { appHomeView, type NeedsYou } from '../../views/app-home.ts';

/** What a run in each waiting status needs from a person, in words. */
const NEED: Partial<Record<RunStatus, string>> = {
  'awaiting-approval': 'Approve, modify or reject the plan',
  'awaiting-answer': 'Answer a question',
  paused: 'A step waits for a person: an answer, a Confirm or a decision on what went wrong',
};

export function registerAppHome(app: App, deps: BotDeps): void {
  app.event('app_home_opened', async ({ event, client }) => {
    if (event.tab !== 'home') return;
    try {
      const [runs, waiting, schedules] = await Promise.all([
        deps.runs.listRuns({ limit: 30, requester: event.user }),
        deps.runs.listRuns({ limit: 50, statuses: Object.keys(NEED) as RunStatus[] }),
        deps.schedules?.list({ createdBy: event.user }) ?? Promise.resolve([]),
      ]);
      const needsYou = await needing(event.user, waiting, deps.policy);
      await client.views.publish({ user_id: event.user, view: appHomeView({ userId: event.user, needsYou, runs, schedules }) });
    } catch (error) {
      deps.logger.warn({ err: describeError(error), user: event.user }, 'could not publish the App Home');
    }
  });
}

/**
 * The waiting runs this person may act on, as the approval policy says: approving, resolving and
 * confirming take an approver; answering the requester or an approver. Another person's run in a
 * direct message is never listed (its thread is not theirs to see).
 */
async function needing(userId: string, runs: readonly RunRecord[], gate: PolicyGate): Promise<NeedsYou[]> {
  const found: NeedsYou[] = [];
  for (const run of runs) {
    const what = NEED[run.status];
    if (!what) continue;
    if (run.requester !== userId && run.conversation.channel.startsWith('D')) continue;
    const may =
      run.status === 'awaiting-answer'
        ? await checkRequesterOrApprover({ action: 'answer', userId, policy: { gate, run } })
        : await checkResolver({ userId, policy: { gate, run } });
    if (may.ok) found.push({ run, what });
  }
  return found;
}
