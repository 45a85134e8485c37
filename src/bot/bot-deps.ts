import type { Result } from '../agent/model/errors.ts';
import type { AgentApi } from '../agent/ports/agent-api.ts';
import type { PolicyGate } from '../agent/decisions/policy-approval.ts';
import type { Logger } from '../observability/logger.ts';
import type { ScheduleService } from '../schedules/index.ts';
import type { FeedbackLog, RunQueries } from './ports.ts';
import type { ChannelMembers } from './surface/channel-members.ts';

/** What the listeners share; each listener file takes this and registers itself on the app. */
export interface BotDeps {
  agent: AgentApi;
  runs: RunQueries;
  logger: Logger;
  /** A plan's buttons were used; the message now says who decided. */
  planDecided(runId: string): void;
  /** Schedules from Slack (`/tandem schedule`, a schedule mention); absent: the bot says it cannot schedule. */
  schedules?: ScheduleService;
  /** "Save as runbook" on a succeeded run's summary. */
  runbooks?: RunbookSaver;
  /** The policy in force (decision 028): saving a runbook, removing a schedule and the App Home's "needs you" ask it. */
  policy: PolicyGate;
  /** TANDEM_ALLOW_BOTS: other apps whose messages may start, answer or cancel runs; absent: none. */
  allowBots?: readonly string[];
  /** Where feedback on summaries is kept; absent: clicks are acknowledged and dropped. */
  feedback?: FeedbackLog;
  /** Who is in which channel ("Waiting for you" lists a channel's waits only to its members); absent: asked of Slack with the listener's client. */
  channelMembers?: ChannelMembers;
  /** TANDEM_ATTRIBUTION: the full plan view says GitHub writes get an attribution line (absent: on). */
  attribution?: boolean;
  /** Every configured secret value: a person's words the bot repeats in a thread are redacted with them, as the store's copy is. */
  secrets?: readonly string[];
}

/** The catalog's save, as the Slack surface needs it. */
export interface RunbookSaver {
  save(input: { runId: string; params: Record<string, string>; createdBy: string; name?: string }): Promise<Result<{ name: string; pattern: string }>>;
}
