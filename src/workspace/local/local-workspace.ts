import { randomBytes } from 'node:crypto';
import type { Logger } from '../../observability/logger.ts';
import { SlackDriver } from '../slack-fake/driver.ts';
import { SlackFakeServer, type ExtraRoutes } from '../slack-fake/server.ts';
import type { BrowserContext } from './browser-actions.ts';
import { browserRoutes } from './browser-api.ts';
import { ChangeFeed } from './change-feed.ts';
import { LOCAL_CHANNEL, LOCAL_USER } from './local-identity.ts';
import { ModalSession } from './modal-session.ts';
import { applyResponse } from './response-urls.ts';

export interface LocalWorkspace {
  /** The page to open in a browser. */
  url: string;
  /** For SLACK_API_URL / `slackApiUrl` (trailing slash included). */
  slackApiUrl: string;
  /** The only token the local Web API accepts. */
  botToken: string;
  /** The fake behind it, for tests that want to read the workspace model or recorded calls. */
  fake: SlackFakeServer;
  /** Where the bot receives Slack's requests (`http://127.0.0.1:PORT/slack/events`); until then the page says it is not connected. */
  connectBot(eventsUrl: string): void;
  close(): Promise<void>;
}

/**
 * A Slack workspace on 127.0.0.1 for trying Tandem with no Slack app: the fake Web API (the same code
 * the test suite uses) plus a page where one person chats in #general with the unchanged Bolt app,
 * which it drives with signed requests as Slack would.
 */
export async function startLocalWorkspace(options: { port?: number; signingSecret: string; logger: Logger }): Promise<LocalWorkspace> {
  const botToken = `xoxb-local-${randomBytes(12).toString('hex')}`;
  let bot: { driver: SlackDriver; eventsUrl: string } | undefined;
  const feed = new ChangeFeed();
  // The routes need the fake and the fake needs the routes; the indirection breaks the cycle.
  let routes: ExtraRoutes = () => false;
  const fake = new SlackFakeServer({ token: botToken, extraRoutes: (req, res, body) => routes(req, res, body) });
  const ctx: BrowserContext = { fake, modal: new ModalSession(fake.model, LOCAL_USER.id), feed, bot: () => bot, notice: { text: null } };
  routes = browserRoutes(ctx, options.logger);
  fake.model.channels.add(LOCAL_CHANNEL.id);
  fake.model.users.set(LOCAL_USER.id, { id: LOCAL_USER.id, name: LOCAL_USER.name, real_name: 'You (local workspace)' });

  fake.onCall((call) => {
    if (call.method === 'response_url') applyResponse(fake.model, call.params.body ?? '', { channel: LOCAL_CHANNEL.id, user: LOCAL_USER.id });
    ctx.modal.noteCall(call);
    feed.changed();
  });

  await fake.start(options.port ?? 0);
  const url = `${fake.origin}/`;
  options.logger.info({ url }, `Local workspace: open ${url} in a browser and mention @tandem`);

  return {
    url,
    slackApiUrl: fake.apiUrl,
    botToken,
    fake,
    connectBot(eventsUrl) {
      bot = { driver: new SlackDriver({ eventsUrl, signingSecret: options.signingSecret, fake, teamId: fake.model.bot.teamId }), eventsUrl };
      ctx.notice.text = null;
      feed.changed();
    },
    async close() {
      feed.close();
      await fake.stop();
    },
  };
}
