import type { AgentApi } from '../agent/ports/agent-api.ts';
import type { Logger } from '../observability/logger.ts';
import type { RunQueries, SlackEventLog } from './ports.ts';
import type { SlackClient } from './slack-client.ts';

/** What the listeners share; each listener file takes this and registers itself on the app. */
export interface BotDeps {
  agent: AgentApi;
  events: SlackEventLog;
  runs: RunQueries;
  logger: Logger;
  /** A plan's buttons were used; the message now says who decided. */
  planDecided(runId: string): void;
}

/** Bolt hands each listener a client already holding the bot token. */
export type ListenerClient = SlackClient;
