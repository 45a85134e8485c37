import { randomBytes } from 'node:crypto';
import type { Logger } from '../../observability/logger.ts';
import { SlackDriver } from '../slack-fake/driver.ts';
import { SlackFakeServer, type ExtraRoutes, type RequestGuard } from '../slack-fake/server.ts';
import type { BrowserContext } from './browser-actions.ts';
import { browserRoutes } from './browser-api.ts';
import { ChangeFeed } from './change-feed.ts';
import type { DemoPresentation } from './demo-presentation.ts';
import { LOCAL_CHANNEL, LOCAL_CONVERSATIONS } from './local-identity.ts';
import { ModalSession } from './modal-session.ts';
import { People, type WorkspacePerson } from './people.ts';
import { createWorkspaceKey } from './request-guard.ts';
import { applyResponse } from './response-urls.ts';

export interface LocalWorkspace {
  /** The page to open in a browser, with the key made at start-up (`?k=…`): a secret, print it, never log it. */
  url: string;
  /** `http://127.0.0.1:PORT`, without the key: safe to log. */
  origin: string;
  /** The key in `url`, for the secrets the logger strips. */
  key: string;
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
export async function startLocalWorkspace(options: {
  port?: number;
  signingSecret: string;
  logger: Logger;
  /** The people the page can act as, the first by default (the demo's several; normally one local person). */
  people?: readonly WorkspacePerson[];
  /** Set for `tandem start --demo`: the banner, DEMO marks and guided tasks. */
  demo?: DemoPresentation;
}): Promise<LocalWorkspace> {
  const botToken = `xoxb-local-${randomBytes(12).toString('hex')}`;
  let bot: { driver: SlackDriver; eventsUrl: string } | undefined;
  const feed = new ChangeFeed();
  // The routes need the fake and the fake needs the routes, and the guard needs the port the fake
  // gets: the indirections break the cycles. Until the guard is set, nothing is served.
  let routes: ExtraRoutes = () => false;
  let guard: RequestGuard = () => ({ status: 503, error: 'The local workspace is starting.' });
  const fake = new SlackFakeServer({
    token: botToken,
    extraRoutes: (req, res, body) => routes(req, res, body),
    guard: (req, url) => guard(req, url),
    maxRecordedCalls: 1000,
  });
  for (const channel of LOCAL_CONVERSATIONS) fake.model.channels.add(channel);
  // The workspace shows Slack's agent surfaces (the thread's "is planning…", the session and its Stop), as an agent app's would.
  fake.model.agentFeatures.threadStatus = true;
  fake.model.agentFeatures.sessions = true;
  const people = new People(options.people);
  // Whoever is at the keyboard is on this machine, so the profile's time zone is the machine's (a schedule made here uses it).
  const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
  for (const person of people.list) fake.model.users.set(person.id, { id: person.id, name: person.name, real_name: person.title, tz });
  const modal = new ModalSession(fake.model, () => people.current().id);
  fake.onCall((call) => {
    // A slash command's answer goes to whoever the page acts as: the demo's person switch waits for nothing.
    if (call.method === 'response_url') applyResponse(fake.model, call.params.body ?? '', { channel: LOCAL_CHANNEL.id, user: people.current().id });
    modal.noteCall(call);
    feed.changed();
  });

  await fake.start(options.port ?? 0);
  const access = createWorkspaceKey({ port: Number(new URL(fake.origin).port), botToken, isIssuedResponse: (id) => fake.isIssuedResponse(id) });
  const ctx: BrowserContext = { fake, modal, feed, bot: () => bot, notice: { text: null }, cookie: access.cookie, people, demo: options.demo ?? null };
  routes = browserRoutes(ctx, options.logger);
  guard = access.guard;
  const url = `${fake.origin}/?k=${access.key}`;
  // Only the origin: the key is printed once on the terminal, never logged. The wording stays clear of
  // the printed "Local workspace: <url>" line, which people and scripts look for.
  options.logger.info({ origin: fake.origin }, 'local workspace is serving on 127.0.0.1; its address with its key is printed on the terminal');

  return {
    url,
    origin: fake.origin,
    key: access.key,
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
