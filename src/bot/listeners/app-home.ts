import type { App } from '@slack/bolt';
import type { BotDeps } from '../bot-deps.ts';
import { describeError } from '../surface/replies.ts';
import { appHomeView } from '../views/app-home.ts';

export function registerAppHome(app: App, deps: BotDeps): void {
  app.event('app_home_opened', async ({ event, client }) => {
    if (event.tab !== 'home') return;
    try {
      const runs = await deps.runs.listRuns({ limit: 20, requester: event.user });
      await client.views.publish({ user_id: event.user, view: appHomeView({ userId: event.user, runs }) });
    } catch (error) {
      deps.logger.warn({ err: describeError(error), user: event.user }, 'could not publish the App Home');
    }
  });
}
