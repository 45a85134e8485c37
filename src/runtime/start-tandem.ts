import { createAgent, type Agent } from '../agent/agent.ts';
import type { RunStore } from '../agent/ports/run-store.ts';
import { createSlackApp, createSlackApproverDirectory, createSlackClient, SlackSurface } from '../bot/index.ts';
import type { Config } from '../config/config.ts';
import { createLlmClient } from '../integrations/llm/index.ts';
import { instrumentRunStore } from '../observability/instrumented-store.ts';
import type { Logger } from '../observability/logger.ts';
import { createMetrics, type Metrics } from '../observability/metrics.ts';
import { createRunbookCatalog } from '../runbooks/index.ts';
import { createRunStore, createSlackInbox, expireLeasesOfDeadOwners, type Database } from '../store/index.ts';
import { startLocalWorkspace, type LocalWorkspace } from '../workspace/local/index.ts';
import { openConfiguredDatabase } from './open-database.ts';
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
  const cleanups: (() => Promise<void>)[] = [];
  let shutdownDeadlineMs = 10_000;
  const closeAll = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((error: unknown) => logger.warn({ err: error }, 'shutdown step failed'));
  };

  try {
    let config = await withMcpSecrets(options.config);
    let workspace: LocalWorkspace | undefined;
    let listen = { port: options.port ?? config.port, host: undefined as string | undefined };
    if (options.local) {
      const signingSecret = newLocalSigningSecret();
      workspace = await startLocalWorkspace({ port: options.workspacePort, signingSecret, logger });
      cleanups.push(() => workspace!.close());
      listen = { port: await localBotPort(listen.port), host: LOCAL_HOST };
      config = localSlackConfig(config, workspace, signingSecret, listen.port);
    }

    const database: Database = await openConfiguredDatabase(config);
    cleanups.push(() => database.close());
    const metrics = createMetrics();
    const store = instrumentRunStore(createRunStore(database.db), metrics);

    // The client sees every answer that was paid for, including ones that did not parse, and every
    // role's calls (llm_task runs inside a tool), so it alone records usage against the run.
    const llm = createLlmClient({ config, logger, onUsage: (usage) => store.recordUsage(usage) });
    const slackClient = createSlackClient(config, logger);
    countSlackRateLimits(slackClient, metrics);
    const { tools, close: closeTools } = await buildTools(config, { llm, slackClient, logger, onGithubClient: (github) => countGithubErrors(github, metrics) });
    cleanups.push(closeTools);
    const risks = new Map(tools.map((tool) => [tool.name, tool.risk]));
    const runbooks = await createRunbookCatalog({ db: database.db, dir: config.runbooksDir, logger, riskOf: (tool) => risks.get(tool) });
    // A runbook saved on another replica reaches this one within a minute (a save here reloads at once).
    cleanups.push(refreshRunbooksPeriodically(runbooks, logger));

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
    const agent = createAgent({
      store,
      llm,
      tools,
      surface,
      approvers,
      settings: {
        budgets: config.budgets,
        confidenceThreshold: config.confidenceThreshold,
        autoRunReadOnly: config.autoRunReadOnly,
        secrets: config.secrets,
        repositories: config.github.repos,
        concurrency: 8,
        housekeeping: config.housekeeping,
      },
      logger,
      owner: replicaId,
      // PGlite's folder lock means no other process can hold a step: anything left running is ours to settle.
      soleOwner: database.engine === 'pglite',
      usageRecordedByLlm: true,
      runbooks,
    });
    cleanups.push(() => agent.shutdown(shutdownDeadlineMs));
    const schedules = createSchedules({ db: database.db, replicaId, agent, client: slackClient, logger, secrets: config.secrets });

    const slack = createSlackApp({
      config,
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
    cleanups.push(() => slack.stop());
    workspace?.connectBot(`http://${LOCAL_HOST}:${port}/slack/events`);

    await schedules.scheduler.start();
    cleanups.push(() => schedules.scheduler.stop());

    // A process of this host that died (this container's previous life, or a sibling replica) holds
    // nothing: its runs, steps, requests and owed messages are taken over now, not when its leases run out.
    const shared = database.engine !== 'pglite';
    const expireDead = async () => {
      if (!shared) return;
      const dead = await expireLeasesOfDeadOwners(database.db, (owner) => isDeadLocalReplica(owner, replicaId));
      if (dead.length) logger.info({ dead }, 'took over the leases of stopped processes on this host');
    };
    await expireDead().catch((error: unknown) => logger.warn({ err: error }, 'checking for stopped processes failed'));
    await agent.resume();
    // Requests acknowledged before a crash come after the runs resume: one may decide a run that is resuming.
    cleanups.push(resumeInboxPeriodically({ resumeInbox: async () => (await expireDead(), slack.resumeInbox()), everyMs: 5_000, repeat: shared, logger }));
    cleanups.push(scheduleHousekeeping({ agent, db: database.db, metrics, replicaId, logger }));
    logger.info({ port, mode: config.slack.mode, replicaId, engine: database.engine, workspace: workspace?.origin }, 'Tandem is running');

    return {
      port,
      workspace,
      agent,
      store,
      metrics,
      async close(deadlineMs = 10_000) {
        shutdownDeadlineMs = deadlineMs;
        await closeAll();
      },
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
