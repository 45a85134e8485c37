import type { Logger } from '../observability/logger.ts';
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
