import type { App } from '@slack/bolt';
import type { WaitForPerson } from '../../../agent/ports/run-store.ts';
import type { BotDeps } from '../../bot-deps.ts';
import { createChannelMembers, type ChannelMembers } from '../../surface/channel-members.ts';
import { describeError } from '../../surface/replies.ts';
import type { SlackClient } from '../../surface/slack-client.ts';
import { waitPermalinks } from '../../surface/wait-messages.ts';
import { appHomeView, type NeedsYou } from '../../views/app-home.ts';

/** What each kind of wait needs from the viewer, in words. */
const NEED: Record<WaitForPerson['wait']['kind'], string> = {
  approval: 'Approve, modify or reject the plan',
  question: 'Answer a question',
  escalation: 'Decide how the run goes on',
  confirm: 'Confirm what a step acts on',
};

/** Waits shown at most; the view draws no more. */
const SHOWN = 15;

export function registerAppHome(app: App, deps: BotDeps): void {
  let members: ChannelMembers | undefined = deps.channelMembers;
  app.event('app_home_opened', async ({ event, client }) => {
    if (event.tab !== 'home') return;
    members ??= createChannelMembers({ client, logger: deps.logger });
    try {
      const [runs, waits, schedules] = await Promise.all([
        deps.runs.listRuns({ limit: 30, requester: event.user }),
        deps.agent.waitsFor({ userId: event.user }),
        deps.schedules?.list({ createdBy: event.user }) ?? Promise.resolve([]),
      ]);
      const needsYou = await waitingFor(client, members, event.user, waits);
      await client.views.publish({ user_id: event.user, view: appHomeView({ userId: event.user, needsYou, runs, schedules }) });
    } catch (error) {
      deps.logger.warn({ err: describeError(error), user: event.user }, 'could not publish the App Home');
    }
  });
}

/**
 * The waits the agent says this person may answer, in channels they are in (a private channel's work is
 * never shown to someone outside it), each with a link to its message.
 */
async function waitingFor(client: SlackClient, members: ChannelMembers, userId: string, waits: readonly WaitForPerson[]): Promise<NeedsYou[]> {
  const visible: WaitForPerson[] = [];
  for (const item of waits) {
    if (visible.length >= SHOWN) break;
    if (await members.isMember(item.run.conversation.channel, userId)) visible.push(item);
  }
  // A stored link (decision 037) needs no read of the thread; a wait posted before links were stored is looked for.
  const links = await waitPermalinks(
    client,
    visible.filter((item) => !item.permalink),
  );
  return visible.map((item) => {
    const permalink = item.permalink ?? links.get(item);
    return { run: item.run, what: NEED[item.wait.kind], ...(item.handedBy ? { handedBy: item.handedBy } : {}), ...(permalink ? { permalink } : {}) };
  });
}
