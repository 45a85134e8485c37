import { savePolicyTexts } from '../store/policy-texts-repository.ts';
import type { PolicyGate } from '../agent/decisions/policy-approval.ts';
import { createSlackGroupDirectory } from '../bot/surface/slack-group-directory.ts';
import { scheduleCreation, startPolicy } from './policy/policy-wiring.ts';
import { createAgent, type Agent } from '../agent/agent.ts';
import type { LlmClient } from '../agent/ports/llm.ts';
import type { RunStore } from '../agent/ports/run-store.ts';
import type { AnyTool } from '../agent/ports/tool.ts';
import { createSlackApp, createSlackClient, isSlackTimeout, SlackSurface, type PostSettle, type SlackClient } from '../bot/index.ts';
import type { Config } from '../config/config.ts';
import { createLlmClient } from '../integrations/llm/index.ts';
import { instrumentRunStore } from '../observability/instrumented-store.ts';
import type { Logger } from '../observability/logger.ts';
import { createMetrics, type Metrics } from '../observability/metrics.ts';
import { startTracing } from '../observability/tracing.ts';
import { recordRemindAfter } from '../observability/wait-metrics.ts';
import { createRunbookCatalog, type RunbookCatalog } from '../runbooks/catalog.ts';
import { createRunbooksStore, createRunStore, createSlackInbox, expireLeasesOfDeadOwners, storeFailureKind, type Database } from '../store/index.ts';
import type { LocalWorkspace } from '../workspace/local/index.ts';
import { openDatabaseWaiting } from './open-database.ts';
import { createCleanups, type Cleanups } from './cleanups.ts';
import { countGithubErrors, countSlackRateLimits } from './api-error-metrics.ts';
import { buildTools } from './build-tools.ts';
import { metricsRoute } from './http-routes.ts';
import { embeddedCliAccess } from './cli-route.ts';
import { storeHealthRoute } from './health-route.ts';
import { countStoreErrors } from '../observability/store-error-metrics.ts';
import { LOCAL_HOST, localBotPort, localSlackConfig, newLocalSigningSecret } from './local-config.ts';
import { withMcpSecrets } from './mcp-secrets.ts';
import { isDeadLocalReplica, newReplicaId } from './replica-id.ts';
import { scheduleHousekeeping } from './housekeeping.ts';
import { resumeInboxPeriodically } from './inbox-resume.ts';
import { refreshRunbooksPeriodically } from './runbook-refresh.ts';
import { createSchedules, type SchedulerClock } from './schedules.ts';
import type { DemoWiring } from './demo-wiring.ts';
import { storedFeedback } from './stored-feedback.ts';
import { workInHandGauge } from './work-in-hand.ts';

export interface StartOptions {
  config: Readonly<Config>;
  logger: Logger;
  /** Serve the local browser workspace and connect the bot to it instead of Slack. */
  local?: boolean;
  /** `tandem start --demo`: the local workspace with a scripted model and a GitHub sandbox (demo-wiring.ts). */
  demo?: boolean;
  /** In the demo, how long a workflow run takes (tests shorten it). */
  demoRunMs?: number;
  /** Overrides PORT (0 for a random port in tests). */
  port?: number;
  /** The local workspace's port (default: a random free one). */
  workspacePort?: number;
  replicaId?: string;
  /** Tests only: the schedules' clock, so a schedule fires without waiting for its slot. */
  scheduleClock?: SchedulerClock;
  /** Slack's Web API timings, shortened by tests: see SlackTimings. */
  slackTimings?: SlackTimings;
  /** Ends a start still waiting for an unreachable database (a SIGTERM): it rejects, having closed what it started. */
  signal?: AbortSignal;
}

/**
 * How long a Web API call waits for Slack's answer (default 10 s), how long a post that got none is looked
 * for in its thread, and the board's first wait before sending again. Not settings: tests shorten them to
 * show a Slack that hangs for minutes without waiting minutes.
 */
export interface SlackTimings {
  requestTimeoutMs?: number;
  /** The client's wait between tries of a call (default 0.5 s doubling to 5 s). */
  retryBackoffMs?: { min: number; max: number };
  postSettle?: PostSettle;
  boardRetryBaseMs?: number;
  /** How long a message a run owes its thread waits to be sent again after Slack did not take it (default 5 s). */
  owedRetryMs?: number;
}

export interface TandemRuntime {
  /** The HTTP port: `/slack/events` (HTTP mode), `/healthz`, `/metrics`. */
  port: number;
  workspace: LocalWorkspace | undefined;
  /** Set in the demo: its GitHub sandbox's repositories. */
  demo: { world: DemoWiring['world'] } | undefined;
  agent: Agent;
  store: RunStore;
  metrics: Metrics;
  /** Stops taking work, lets running steps reach a recorded state within the deadline, and closes everything. */
  close(deadlineMs?: number): Promise<void>;
}

/** The composition root: reads nothing itself, builds every part from the config and wires them together. */
export async function startTandem(options: StartOptions): Promise<TandemRuntime> {
  const { logger } = options;
  const replicaId = options.replicaId ?? newReplicaId();
  const cleanups = createCleanups(logger);
  let shutdownDeadlineMs = 10_000;

  try {
    // The demo and the browser workspace load only when asked for: a Slack deployment never reads their code.
    const demo = options.demo ? await (await import('./demo-wiring.ts')).prepareDemo(options.config, { runMs: options.demoRunMs }) : undefined;
    // Added first, closed last: the sandbox answers steps until the agent has stopped.
    if (demo) cleanups.add(() => demo.close());
    const chosen = demo ? { ...options, config: demo.config, local: true, workspace: demo.workspace } : options;
    const { config, workspace, listen } = await chooseListener(chosen, cleanups);
    const services = await buildServices(config, logger, cleanups, { demo, slackTimings: options.slackTimings, listen, signal: options.signal });
    const { database, store, slackClient, runbooks, metrics } = services;
    const surface = new SlackSurface({
      client: slackClient,
      logger,
      escalateTo: config.escalateTo,
      boardStyle: config.boardStyle,
      showCost: config.showCost,
      confidenceThreshold: config.confidenceThreshold,
      approvers: config.approvers,
      postSettle: options.slackTimings?.postSettle,
      boardRetryBaseMs: options.slackTimings?.boardRetryBaseMs,
      onBoardPosted: (runId, ts) => store.updateRun(runId, { boardRef: ts }).then(() => undefined),
      // The agent is built with this surface; it is there before the first message is posted.
      waitMessages: { posted: (input) => agent.waitMessages.posted(input), links: (runId) => agent.waitMessages.links(runId) },
    });
    const policy = startPolicy(config, createSlackGroupDirectory({ client: slackClient, logger }), logger, (loaded) =>
      savePolicyTexts(database.db, loaded.hash, loaded.sources),
    );
    cleanups.add(async () => policy.stop());
    const agent = buildAgent(config, services, { surface, policy: policy.gate, logger, replicaId, owedRetryMs: options.slackTimings?.owedRetryMs });
    cleanups.add(() => agent.shutdown(shutdownDeadlineMs));
    workInHandGauge(metrics.registry, agent, database);
    const schedules = createSchedules({
      db: database.db,
      replicaId,
      agent,
      client: slackClient,
      logger,
      secrets: config.secrets,
      bounds: { maxPerChannel: config.policy.maxSchedules, minIntervalS: config.policy.minScheduleIntervalS },
      mayCreate: scheduleCreation(policy.gate),
      clock: options.scheduleClock,
    });

    // The embedded store has one owner: the CLI's store commands are run here while this process holds it.
    const cli = database.engine === 'pglite' && !config.database.url ? embeddedCliAccess({ config, database, logger }) : undefined;
    const slack = createSlackApp({
      config,
      loopbackOnly: listen.host === LOCAL_HOST,
      agent,
      inbox: createSlackInbox(database.db, { owner: replicaId, soleOwner: database.engine === 'pglite', health: database.health }),
      runs: store,
      logger,
      client: slackClient,
      surface,
      customRoutes: [storeHealthRoute(database), metricsRoute(metrics), ...(cli ? [cli.route] : [])],
      schedules: schedules.service,
      runbooks,
      policy: policy.gate,
      feedback: storedFeedback(database.db, metrics),
    });
    const { port } = await slack.start(listen.port, listen.host);
    cleanups.add(() => slack.stop());
    if (cli) cleanups.add(cli.publish(port));
    workspace?.connectBot(`http://${LOCAL_HOST}:${port}/slack/events`);

    await schedules.scheduler.start();
    cleanups.add(() => schedules.scheduler.stop());

    const expireDead = deadReplicaSweeper(database, replicaId, logger);
    await expireDead().catch((error: unknown) => logger.warn({ err: error }, 'checking for stopped processes failed'));
    await agent.resume();
    // Requests acknowledged before a crash come after the runs resume: one may decide a run that is resuming.
    // Repeated on PGlite too: a request stored while the store was failing, whose handling failed with it, is handled
    // once its lease runs out instead of waiting for a restart.
    cleanups.add(resumeInboxPeriodically({ resumeInbox: async () => (await expireDead(), slack.resumeInbox()), everyMs: 5_000, repeat: true, logger }));
    cleanups.add(scheduleHousekeeping({ agent, db: database.db, metrics, replicaId, logger, waits: config.housekeeping }));
    logger.info({ port, mode: config.slack.mode, replicaId, engine: database.engine, workspace: workspace?.origin, demo: Boolean(demo) }, 'Tandem is running');

    return {
      port,
      workspace,
      demo: demo ? { world: demo.world } : undefined,
      agent,
      store,
      metrics,
      async close(deadlineMs = 10_000) {
        shutdownDeadlineMs = deadlineMs;
        await cleanups.runAll();
      },
    };
  } catch (error) {
    await cleanups.runAll();
    throw error;
  }
}

interface Listener {
  config: Readonly<Config>;
  workspace: LocalWorkspace | undefined;
  listen: { port: number; host: string | undefined };
}

/** Slack, or in local mode the browser workspace started here, with the config rewritten to talk to it. */
async function chooseListener(options: StartOptions & { workspace?: DemoWiring['workspace'] }, cleanups: Cleanups): Promise<Listener> {
  const config = await withMcpSecrets(options.config);
  const port = options.port ?? config.port;
  if (!options.local) return { config, workspace: undefined, listen: { port, host: undefined } };
  const signingSecret = newLocalSigningSecret();
  const { startLocalWorkspace } = await import('../workspace/local/index.ts');
  const workspace = await startLocalWorkspace({ port: options.workspacePort, signingSecret, logger: options.logger, ...options.workspace });
  cleanups.add(() => workspace.close());
  const listen = { port: await localBotPort(port), host: LOCAL_HOST };
  return { config: localSlackConfig(config, workspace, signingSecret, listen.port), workspace, listen };
}

interface Services {
  database: Database;
  metrics: Metrics;
  store: RunStore;
  llm: LlmClient;
  slackClient: SlackClient;
  tools: AnyTool[];
  runbooks: RunbookCatalog;
}

type ServiceOptions = { demo?: Pick<DemoWiring, 'llm' | 'poll'>; slackTimings?: SlackTimings; listen: Listener['listen']; signal?: AbortSignal };

/** What the agent and the Slack app share: the database and store, the model client, the tools and runbooks. */
async function buildServices(config: Readonly<Config>, logger: Logger, cleanups: Cleanups, options: ServiceOptions): Promise<Services> {
  const { demo, slackTimings, listen, signal } = options;
  const database: Database = await openDatabaseWaiting(config, logger, listen, signal);
  cleanups.add(() => database.close());
  const metrics = createMetrics();
  countStoreErrors(metrics, database.health);
  recordRemindAfter(metrics, config.housekeeping);
  const counted = instrumentRunStore(createRunStore(database.db), metrics);
  // With an OTLP endpoint set, each run is a trace recorded from the store, the tools and the model calls.
  const tracing = await startTracing({ config, store: counted, logger });
  if (tracing) cleanups.add(() => tracing.close());
  const store = tracing?.store ?? counted;
  // The client sees every answer that was paid for, including ones that did not parse, and every
  // role's calls (llm_task runs inside a tool), so it alone records usage against the run.
  const untracedLlm = demo?.llm ?? createLlmClient({ config, logger, onUsage: (usage) => store.recordUsage(usage) });
  const llm = tracing?.llm(untracedLlm) ?? untracedLlm;
  const slackClient = createSlackClient(config, logger, {
    timeoutMs: slackTimings?.requestTimeoutMs,
    retryBackoffMs: slackTimings?.retryBackoffMs,
    // A Slack that hangs is told apart from one that answers with errors.
    onError: (error) => metrics.apiErrors.inc({ api: 'slack', kind: isSlackTimeout(error) ? 'timeout' : 'error' }),
  });
  countSlackRateLimits(slackClient, metrics);
  const built = await buildTools(config, { llm, slackClient, logger, poll: demo?.poll, onGithubClient: (github) => countGithubErrors(github, metrics) });
  cleanups.add(built.close);
  const tools = tracing?.tools(built.tools) ?? built.tools;
  const risks = new Map(tools.map((tool) => [tool.name, tool.risk]));
  const runbooks = await createRunbookCatalog({ store: createRunbooksStore(database.db), dir: config.runbooksDir, logger, riskOf: (tool) => risks.get(tool) });
  // A runbook saved on another replica reaches this one within a minute (a save here reloads at once).
  cleanups.add(refreshRunbooksPeriodically(runbooks, logger));
  return { database, metrics, store, llm, slackClient, tools, runbooks };
}

function buildAgent(
  config: Readonly<Config>,
  { database, store, llm, tools, runbooks }: Services,
  wiring: { surface: SlackSurface; policy: PolicyGate; logger: Logger; replicaId: string; owedRetryMs: number | undefined },
): Agent {
  return createAgent({
    store,
    llm,
    tools,
    surface: wiring.surface,
    policy: wiring.policy,
    settings: {
      budgets: config.budgets,
      confidenceThreshold: config.confidenceThreshold,
      autoRunReadOnly: config.autoRunReadOnly,
      secrets: config.secrets,
      repositories: config.github.repos,
      concurrency: 8,
      housekeeping: { ...config.housekeeping, approvers: config.approvers },
      attribution: config.attribution,
    },
    logger: wiring.logger,
    owner: wiring.replicaId,
    // PGlite's folder lock means no other process can hold a step: anything left running is ours to settle.
    soleOwner: database.engine === 'pglite',
    usageRecordedByLlm: true,
    isStoreOutage: (error) => storeFailureKind(error) !== undefined,
    runbooks,
    replicas: wiring.owedRetryMs === undefined ? undefined : { owedRetryMs: wiring.owedRetryMs },
  });
}

/**
 * A process of this host that died (this container's previous life, or a sibling replica) holds
 * nothing: its runs, steps, requests and owed messages are taken over now, not when its leases run out.
 */
function deadReplicaSweeper(database: Database, replicaId: string, logger: Logger): () => Promise<void> {
  return async () => {
    if (database.engine === 'pglite') return;
    const dead = await expireLeasesOfDeadOwners(database.db, (owner) => isDeadLocalReplica(owner, replicaId));
    if (dead.length) logger.info({ dead }, 'took over the leases of stopped processes on this host');
  };
}
