import { createAgent, type Agent } from '../agent/agent.ts';
import type { ApproverDirectory } from '../agent/ports/approvers.ts';
import type { LlmClient } from '../agent/ports/llm.ts';
import type { RunStore } from '../agent/ports/run-store.ts';
import type { AnyTool } from '../agent/ports/tool.ts';
import { createSlackApp, createSlackApproverDirectory, createSlackClient, SlackSurface, type SlackClient } from '../bot/index.ts';
import type { Config } from '../config/config.ts';
import { createLlmClient } from '../integrations/llm/index.ts';
import { instrumentRunStore } from '../observability/instrumented-store.ts';
import type { Logger } from '../observability/logger.ts';
import { createMetrics, type Metrics } from '../observability/metrics.ts';
import type { RunbookCatalog } from '../runbooks/catalog.ts';
import { createRunbookCatalog } from '../runbooks/index.ts';
import { createRunbooksStore, createRunStore, createSlackInbox, expireLeasesOfDeadOwners, type Database } from '../store/index.ts';
import { startLocalWorkspace, type LocalWorkspace } from '../workspace/local/index.ts';
import { openConfiguredDatabase } from './open-database.ts';
import { createCleanups, type Cleanups } from './cleanups.ts';
import { countGithubErrors, countSlackRateLimits } from './api-error-metrics.ts';
import { buildTools } from './build-tools.ts';
import { metricsRoute } from './http-routes.ts';
import { LOCAL_HOST, localBotPort, localSlackConfig, newLocalSigningSecret } from './local-config.ts';
import { withMcpSecrets } from './mcp-secrets.ts';
import { isDeadLocalReplica, newReplicaId } from './replica-id.ts';
import { scheduleHousekeeping } from './housekeeping.ts';
import { resumeInboxPeriodically } from './inbox-resume.ts';
import { refreshRunbooksPeriodically } from './runbook-refresh.ts';
import { createSchedules } from './schedules.ts';
import { storedFeedback } from './stored-feedback.ts';

export interface StartOptions {
  config: Readonly<Config>;
  logger: Logger;
  /** Serve the local browser workspace and connect the bot to it instead of Slack. */
  local?: boolean;
  /** Overrides PORT (0 for a random port in tests). */
  port?: number;
  /** The local workspace's port (default: a random free one). */
  workspacePort?: number;
  replicaId?: string;
}

export interface TandemRuntime {
  /** The HTTP port: `/slack/events` (HTTP mode), `/healthz`, `/metrics`. */
  port: number;
  workspace: LocalWorkspace | undefined;
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
    const { config, workspace, listen } = await chooseListener(options, cleanups);
    const services = await buildServices(config, logger, cleanups);
    const { database, store, slackClient, runbooks, metrics } = services;
    const surface = new SlackSurface({
      client: slackClient,
      logger,
      escalateTo: config.escalateTo,
      boardStyle: config.boardStyle,
      onBoardPosted: async (runId, ts) => {
        await store.updateRun(runId, { boardRef: ts });
      },
    });
    const approvers = createSlackApproverDirectory({ client: slackClient, approvers: config.approvers, logger });
    const agent = buildAgent(config, services, { surface, approvers, logger, replicaId });
    cleanups.add(() => agent.shutdown(shutdownDeadlineMs));
    const schedules = createSchedules({ db: database.db, replicaId, agent, client: slackClient, logger, secrets: config.secrets });

    const slack = createSlackApp({
      config,
      loopbackOnly: listen.host === LOCAL_HOST,
      agent,
      inbox: createSlackInbox(database.db, { owner: replicaId, soleOwner: database.engine === 'pglite' }),
      runs: store,
      logger,
      client: slackClient,
      surface,
      customRoutes: [metricsRoute(metrics)],
      schedules: schedules.service,
      runbooks,
      approvers,
      feedback: storedFeedback(database.db, metrics),
    });
    const { port } = await slack.start(listen.port, listen.host);
    cleanups.add(() => slack.stop());
    workspace?.connectBot(`http://${LOCAL_HOST}:${port}/slack/events`);

    await schedules.scheduler.start();
    cleanups.add(() => schedules.scheduler.stop());

    const expireDead = deadReplicaSweeper(database, replicaId, logger);
    await expireDead().catch((error: unknown) => logger.warn({ err: error }, 'checking for stopped processes failed'));
    await agent.resume();
    // Requests acknowledged before a crash come after the runs resume: one may decide a run that is resuming.
    const shared = database.engine !== 'pglite';
    cleanups.add(resumeInboxPeriodically({ resumeInbox: async () => (await expireDead(), slack.resumeInbox()), everyMs: 5_000, repeat: shared, logger }));
    cleanups.add(scheduleHousekeeping({ agent, db: database.db, metrics, replicaId, logger }));
    logger.info({ port, mode: config.slack.mode, replicaId, engine: database.engine, workspace: workspace?.origin }, 'Tandem is running');

    return {
      port,
      workspace,
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
async function chooseListener(options: StartOptions, cleanups: Cleanups): Promise<Listener> {
  const config = await withMcpSecrets(options.config);
  const port = options.port ?? config.port;
  if (!options.local) return { config, workspace: undefined, listen: { port, host: undefined } };
  const signingSecret = newLocalSigningSecret();
  const workspace = await startLocalWorkspace({ port: options.workspacePort, signingSecret, logger: options.logger });
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

/** What the agent and the Slack app share: the database and store, the model client, the tools and runbooks. */
async function buildServices(config: Readonly<Config>, logger: Logger, cleanups: Cleanups): Promise<Services> {
  const database: Database = await openConfiguredDatabase(config);
  cleanups.add(() => database.close());
  const metrics = createMetrics();
  const store = instrumentRunStore(createRunStore(database.db), metrics);
  // The client sees every answer that was paid for, including ones that did not parse, and every
  // role's calls (llm_task runs inside a tool), so it alone records usage against the run.
  const llm = createLlmClient({ config, logger, onUsage: (usage) => store.recordUsage(usage) });
  const slackClient = createSlackClient(config, logger);
  countSlackRateLimits(slackClient, metrics);
  const { tools, close: closeTools } = await buildTools(config, { llm, slackClient, logger, onGithubClient: (github) => countGithubErrors(github, metrics) });
  cleanups.add(closeTools);
  const risks = new Map(tools.map((tool) => [tool.name, tool.risk]));
  const runbooks = await createRunbookCatalog({ store: createRunbooksStore(database.db), dir: config.runbooksDir, logger, riskOf: (tool) => risks.get(tool) });
  // A runbook saved on another replica reaches this one within a minute (a save here reloads at once).
  cleanups.add(refreshRunbooksPeriodically(runbooks, logger));
  return { database, metrics, store, llm, slackClient, tools, runbooks };
}

function buildAgent(
  config: Readonly<Config>,
  { database, store, llm, tools, runbooks }: Services,
  wiring: { surface: SlackSurface; approvers: ApproverDirectory; logger: Logger; replicaId: string },
): Agent {
  return createAgent({
    store,
    llm,
    tools,
    surface: wiring.surface,
    approvers: wiring.approvers,
    settings: {
      budgets: config.budgets,
      confidenceThreshold: config.confidenceThreshold,
      autoRunReadOnly: config.autoRunReadOnly,
      secrets: config.secrets,
      repositories: config.github.repos,
      concurrency: 8,
      housekeeping: config.housekeeping,
      attribution: config.attribution,
    },
    logger: wiring.logger,
    owner: wiring.replicaId,
    // PGlite's folder lock means no other process can hold a step: anything left running is ours to settle.
    soleOwner: database.engine === 'pglite',
    usageRecordedByLlm: true,
    runbooks,
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
