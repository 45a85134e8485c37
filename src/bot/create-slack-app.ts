import { App, HTTPReceiver, type Authorize, type CustomRoute } from '@slack/bolt';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentApi } from '../agent/ports/agent-api.ts';
import type { PolicyGate } from '../agent/decisions/policy-approval.ts';
import type { Config } from '../config/config.ts';
import type { Logger } from '../observability/logger.ts';
import type { ScheduleService } from '../schedules/index.ts';
import { BotIdentityCache } from './surface/bot-identity.ts';
import type { BotDeps, RunbookSaver } from './bot-deps.ts';
import { registerAppHome } from './listeners/messages/app-home.ts';
import { registerCommand } from './listeners/messages/command.ts';
import { registerErrorHandler } from './listeners/error-handler.ts';
import { registerConfirmActions } from './listeners/run/confirm-actions.ts';
import { registerEscalationActions } from './listeners/run/escalation-actions.ts';
import { registerMention } from './listeners/messages/mention.ts';
import { registerFullPlanButton } from './listeners/plan/full-plan.ts';
import { registerModifyButton } from './listeners/plan/modify.ts';
import { registerModifySubmit } from './listeners/plan/modify-submit.ts';
import { registerPlanActions } from './listeners/plan/plan-actions.ts';
import { registerSaveRunbookButton } from './listeners/run/save-runbook.ts';
import { registerSaveRunbookSubmit } from './listeners/run/save-runbook-submit.ts';
import { registerScheduleActions } from './listeners/run/schedule-actions.ts';
import { registerSessionStopped } from './listeners/messages/session-stopped.ts';
import { registerDirectMessage } from './listeners/messages/direct-message.ts';
import { registerFeedback } from './listeners/run/feedback.ts';
import { registerPlannerTryAgain } from './listeners/plan/planner-try-again.ts';
import { registerQuestionAnswer } from './listeners/run/question-answer.ts';
import { registerReassignActions } from './listeners/run/reassign-actions.ts';
import { InboxReceiver } from './ingress/inbox-receiver.ts';
import { registerCancelRun } from './listeners/run/cancel-run.ts';
import { createMemoryInbox, type FeedbackLog, type RunQueries, type SlackInbox } from './ports.ts';
import { createSlackClient, slackClientOptions, type SlackClient } from './surface/slack-client.ts';
import { slackLogger } from './surface/slack-logger.ts';
import { loopbackHostOnly } from './ingress/loopback-host.ts';
import { signedRequestListener } from './ingress/signed-request.ts';
import { ingressAck, type AnsweringInbox } from './ingress/ingress-ack.ts';
import { createSocketModeConnection } from './ingress/socket-mode.ts';

const EVENTS_PATH = '/slack/events';
/** Slack's requests are kilobytes; a click on the largest message Slack allows stays far below this. */
const BODY_LIMIT = 1024 * 1024;

export interface SlackAppOptions {
  config: Pick<Config, 'slack' | 'port'> & Partial<Pick<Config, 'attribution' | 'secrets'>>;
  agent: AgentApi;
  /** Where requests are stored before their ack; in memory (nothing survives a crash) when absent. */
  inbox?: SlackInbox;
  runs: RunQueries;
  logger: Logger;
  /** More routes on the same HTTP server (the lead's `/metrics`); `/healthz` is always there (one given here replaces the default). */
  customRoutes?: CustomRoute[];
  /** The Slack surface, told when a plan's buttons were used so it does not rewrite that message later. */
  surface?: { planDecided(runId: string): void };
  /** The bot-token client, when the caller built it first (the Slack surface needs it before the agent exists). */
  client?: SlackClient;
  /** Schedules from Slack; without it, schedule requests are answered with "not available". */
  schedules?: ScheduleService;
  /** The runbook catalog, for "Save as runbook". */
  runbooks?: RunbookSaver;
  /** The policy in force (decision 028): who may save a runbook, remove a schedule, or is asked in the App Home. */
  policy: PolicyGate;
  /** Feedback on run summaries (thumbs up/down). */
  feedback?: FeedbackLog;
  /** HTTP receiver tuning; tests shorten nothing by default. */
  receiver?: { unhandledRequestTimeoutMillis?: number };
  /** Local mode: every HTTP request must be addressed to 127.0.0.1 or localhost (loopback-host.ts). */
  loopbackOnly?: boolean;
}

export interface SlackApp {
  app: App;
  /** A client with the bot token, for the Slack surface and poster. */
  client: SlackClient;
  /** Starts listening (HTTP: on `port`, 0 for a random one; on `host` when given, else every interface) and returns the bound port. */
  start(port?: number, host?: string): Promise<{ port: number }>;
  stop(): Promise<void>;
  /** Handles requests acknowledged but left unhandled by a stopped process (or a dead peer); returns how many. */
  resumeInbox(): Promise<number>;
}

export const healthRoute: CustomRoute = {
  path: '/healthz',
  method: ['GET'],
  handler: (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: true }));
  },
};

/**
 * The Bolt app: Socket Mode when an app token is configured, else HTTP (`POST /slack/events`, every
 * request signature-checked). Building it touches no network: the bot's own ids are learned in the
 * background and requests are authorised with the token meanwhile.
 */
export function createSlackApp(options: SlackAppOptions): SlackApp {
  const { config, logger } = options;
  const token = config.slack.botToken;
  if (!token) throw new Error('SLACK_BOT_TOKEN is required to run the Slack app');
  const client = options.client ?? createSlackClient(config, logger);
  // The identity probe retries on its own schedule (BotIdentityCache), so its client does not.
  const identity = new BotIdentityCache(createSlackClient(config, logger, { retries: 0, timeoutMs: 5_000 }), logger);
  const authorize: Authorize<boolean> = async () => ({ botToken: token, botId: identity.current?.botId, botUserId: identity.current?.botUserId });
  // The runtime's own `/healthz` (it knows the store) replaces the bare one.
  const extraRoutes = options.customRoutes ?? [];
  const customRoutes = extraRoutes.some((route) => route.path === healthRoute.path) ? extraRoutes : [healthRoute, ...extraRoutes];
  const common = {
    authorize,
    logger: slackLogger(logger, 'bolt'),
    clientOptions: slackClientOptions(config, logger),
    customRoutes,
    processBeforeResponse: false,
    extendedErrorHandler: true,
    convoStore: false as const,
  };

  const socket =
    config.slack.appToken !== undefined
      ? createSocketModeConnection({ appToken: config.slack.appToken, apiUrl: config.slack.apiUrl, port: config.port, customRoutes, logger })
      : undefined;
  const signingSecret = socket ? undefined : requireSecret(config.slack.signingSecret);
  const http = signingSecret === undefined ? undefined : httpReceiver(signingSecret, customRoutes, options, common.logger);
  const receiver = new InboxReceiver(socket?.receiver ?? http!, options.inbox ?? createMemoryInbox(), logger);
  if (http && signingSecret !== undefined) checkBeforeBolt(http, signingSecret, receiver, options);
  const app = new App({ ...common, customRoutes: undefined, receiver });

  const deps: BotDeps = {
    agent: options.agent,
    runs: options.runs,
    logger,
    planDecided: (runId) => options.surface?.planDecided(runId),
    schedules: options.schedules,
    runbooks: options.runbooks,
    policy: options.policy,
    feedback: options.feedback,
    attribution: config.attribution !== false,
    allowBots: config.slack.allowBots ?? [],
    secrets: config.secrets ?? [],
  };
  registerMention(app, deps);
  registerSessionStopped(app, deps);
  registerDirectMessage(app, deps);
  registerFeedback(app, deps);
  registerPlannerTryAgain(app, deps);
  registerCancelRun(app, deps);
  registerPlanActions(app, deps);
  registerModifyButton(app, deps);
  registerFullPlanButton(app, deps);
  registerModifySubmit(app, deps);
  registerEscalationActions(app, deps);
  registerReassignActions(app, deps);
  registerConfirmActions(app, deps);
  registerQuestionAnswer(app, deps);
  registerCommand(app, deps);
  registerScheduleActions(app, deps);
  registerSaveRunbookButton(app, deps);
  registerSaveRunbookSubmit(app, deps);
  registerAppHome(app, deps);
  registerErrorHandler(app, client, logger);

  return {
    app,
    client,
    async start(port = config.port, host?: string) {
      identity.warmUp();
      if (socket) {
        socket.start(app);
        return { port: config.port };
      }
      const started = (await app.start(host ? { port, host } : port)) as unknown;
      const address = started && typeof started === 'object' && 'address' in started ? (started as Server).address() : null;
      return { port: address && typeof address === 'object' ? (address as AddressInfo).port : port };
    },
    async stop() {
      identity.stop();
      if (socket) await socket.stop();
      else await app.stop();
    },
    resumeInbox: () => receiver.resumeUnfinished(),
  };
}

/** Bolt's HTTP receiver, its own signature check off: ours (checkBeforeBolt) reads each body once. */
function httpReceiver(signingSecret: string, customRoutes: CustomRoute[], options: SlackAppOptions, boltLogger: ReturnType<typeof slackLogger>): HTTPReceiver {
  return new HTTPReceiver({
    signingSecret,
    signatureVerification: false,
    endpoints: EVENTS_PATH,
    customRoutes,
    processBeforeResponse: false,
    logger: boltLogger,
    ...(options.receiver?.unhandledRequestTimeoutMillis ? { unhandledRequestTimeoutMillis: options.receiver.unhandledRequestTimeoutMillis } : {}),
  });
}

/**
 * Every request to Bolt's HTTP receiver passes our signature check first (signedRequestListener); a checked click
 * or event is then answered by the ingress once the inbox has stored it (ingressAck), and everything else goes
 * on to Bolt's receiver. Set before the receiver starts listening.
 */
function checkBeforeBolt(bolt: HTTPReceiver, signingSecret: string, inbox: AnsweringInbox, options: SlackAppOptions): void {
  const boltListener = bolt.requestListener;
  const signed = signedRequestListener(boltListener, {
    signingSecret,
    endpoints: [EVENTS_PATH],
    bodyLimit: BODY_LIMIT,
    logger: options.logger,
    checked: ingressAck(boltListener, inbox, options.logger),
  });
  bolt.requestListener = options.loopbackOnly ? loopbackHostOnly(signed) : signed;
}

function requireSecret(secret: string | undefined): string {
  if (!secret) throw new Error('SLACK_SIGNING_SECRET is required in HTTP mode');
  return secret;
}
