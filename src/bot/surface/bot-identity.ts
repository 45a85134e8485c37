import type { Logger } from '../../observability/logger.ts';
import type { SlackClient } from './slack-client.ts';

export interface BotIdentity {
  botId: string;
  botUserId: string;
}

/**
 * Who the bot is (auth.test), learned without blocking start-up: the app is built with no network,
 * `warmUp()` keeps asking until Slack answers, logging "Slack API unreachable, retrying" meanwhile.
 */
export class BotIdentityCache {
  private identity: BotIdentity | undefined;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly client: SlackClient,
    private readonly logger: Logger,
  ) {}

  get current(): BotIdentity | undefined {
    return this.identity;
  }

  /** One attempt; undefined when Slack cannot be reached right now. */
  async resolve(): Promise<BotIdentity | undefined> {
    if (this.identity) return this.identity;
    try {
      const result = await this.client.auth.test();
      if (result.user_id && result.bot_id) this.identity = { botId: result.bot_id, botUserId: result.user_id };
      return this.identity;
    } catch (error) {
      this.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'Slack API unreachable, retrying');
      return undefined;
    }
  }

  warmUp(delayMs = 1000): void {
    if (this.stopped || this.identity) return;
    void this.resolve().then((identity) => {
      if (identity || this.stopped) return;
      this.timer = setTimeout(() => this.warmUp(Math.min(delayMs * 2, 60_000)), delayMs);
      this.timer.unref();
    });
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }
}

/** What a Slack message event says of who wrote it. */
export interface MessageAuthorship {
  user?: string | undefined;
  bot_id?: string | undefined;
  app_id?: string | undefined;
  bot_profile?: { app_id?: string | undefined } | undefined;
  subtype?: string | undefined;
}

/**
 * Who may start, answer or cancel a run with this message: a person (`user`), or another app that
 * TANDEM_ALLOW_BOTS lists by bot id (B…) or app id (A…), acting as its bot user (or its bot id when the
 * message has no user). Any other app's message, and the bot's own, are ignored: an app's text is
 * anyone's input, and two bots answering each other would loop.
 */
export function messageAuthor(
  event: MessageAuthorship,
  own: { botId?: string | undefined; botUserId?: string | undefined },
  allowBots: readonly string[],
): { user: string } | { ignored: string } {
  const botId = event.bot_id;
  if ((botId && botId === own.botId) || (event.user && event.user === own.botUserId)) return { ignored: 'the bot itself' };
  if (botId || event.subtype === 'bot_message') {
    const appId = event.app_id ?? event.bot_profile?.app_id;
    const listed = [botId, appId].some((id) => id !== undefined && allowBots.includes(id));
    if (!listed) return { ignored: `another app (bot ${botId ?? 'unknown'}${appId ? `, app ${appId}` : ''}) not listed in TANDEM_ALLOW_BOTS` };
    const user = event.user ?? botId;
    return user ? { user } : { ignored: 'an app message without a bot id' };
  }
  return event.user ? { user: event.user } : { ignored: 'a message without an author' };
}
