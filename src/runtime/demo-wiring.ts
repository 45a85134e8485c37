/**
 * `tandem start --demo`: the real runtime with the outside world replaced. GitHub is the in-process
 * sandbox, the model is the scripted one, the store is a PGlite folder of its own under DATA_DIR (never
 * DATABASE_URL, so a demo run never mixes with real ones), and every setting that could reach another
 * machine (a Slack app, model keys, MCP servers, http_check hosts) is dropped.
 */
import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { LlmClient } from '../agent/ports/llm.ts';
import type { Config } from '../config/config.ts';
import { startDemoMode, type DemoMode } from '../demo/demo-mode.ts';
import { DEFAULT_RUN_MS } from '../demo/github/github-sandbox.ts';
import type { SandboxWorld } from '../demo/github/sandbox-world.ts';
import type { PollTiming } from '../integrations/github/workflow-poll.ts';
import { isProcessAlive } from '../store/engine/data-dir-lock.ts';
import { openDatabase } from '../store/index.ts';
import type { DemoPresentation, WorkspacePerson } from '../workspace/local/index.ts';

export interface DemoWiring {
  config: Readonly<Config>;
  llm: LlmClient;
  workspace: { people: readonly WorkspacePerson[]; demo: DemoPresentation };
  /** The sandbox's GitHub, for reading what the demo changed. */
  world: SandboxWorld;
  /**
   * How github_dispatch_workflow polls the sandbox's runs: first a quarter of a run's length on (real GitHub's
   * default is 2 s, when a sandbox run may have ended long before; the tests' runs last 300 ms).
   */
  poll: Partial<PollTiming>;
  close(): Promise<void>;
}

/** The demo's own store, beside (never inside) the real one's files. */
export const demoDataDir = (config: Readonly<Config>) => path.join(config.database.dataDir, 'demo');

export async function prepareDemo(config: Readonly<Config>, options: { runMs?: number } = {}): Promise<DemoWiring> {
  const demo = await startDemoMode(options);
  try {
    const dataDir = demoDataDir(config);
    await forgetPreviousDemo(dataDir);
    return {
      config: demoConfig(config, demo, dataDir),
      llm: demo.llm,
      workspace: {
        people: demo.people.map(({ id, name, title }) => ({ id, name, title })),
        demo: { banner: demo.banner, suggestions: demo.guidedTasks },
      },
      world: demo.github.world,
      poll: { initialMs: (options.runMs ?? DEFAULT_RUN_MS) / 4 },
      close: () => demo.close(),
    };
  } catch (error) {
    await demo.close();
    throw error;
  }
}

export function demoConfig(config: Readonly<Config>, demo: DemoMode, dataDir: string): Readonly<Config> {
  const none = { apiKey: undefined, baseUrl: undefined };
  return Object.freeze({
    ...config,
    slack: {
      botToken: undefined,
      appToken: undefined,
      signingSecret: undefined,
      apiUrl: config.slack.apiUrl,
      mode: 'none' as const,
      messageNote: demo.messageNote,
    },
    openai: none,
    anthropic: none,
    models: { planner: undefined, executor: undefined, evaluator: undefined, 'planner-fallback': undefined },
    github: { token: demo.github.token, apiUrl: demo.github.apiUrl, app: undefined, repos: ['demo/*'] },
    database: { url: undefined, dataDir },
    approvers: [...demo.approvers],
    escalateTo: demo.escalateTo,
    httpAllow: [demo.github.host],
    mcpConfigPath: undefined,
    secrets: [...config.secrets, demo.github.token],
  });
}

/**
 * The sandbox and the workspace start empty every time, so the store does too: a run left from the last
 * demo would resume against a GitHub and a thread that no longer exist. A new database folder costs an
 * initdb (seconds), so the first demo keeps an empty, migrated one aside and later demos start from a copy of it.
 * A folder another demo holds is left alone (opening it then says it is in use).
 */
async function forgetPreviousDemo(dataDir: string): Promise<void> {
  const lock = path.join(dataDir, 'tandem.pid');
  const holder = existsSync(lock) ? Number.parseInt(readFileSync(lock, 'utf8').trim(), 10) : NaN;
  if (Number.isInteger(holder) && holder !== process.pid && isProcessAlive(holder)) return;
  const live = path.join(dataDir, 'pglite');
  const empty = path.join(dataDir, 'empty-pglite');
  rmSync(live, { recursive: true, force: true });
  if (!existsSync(path.join(empty, 'PG_VERSION'))) {
    // Migrated before it is copied, so a later start applies only migrations added since.
    const database = await openDatabase({ dataDir });
    await database.migrate().finally(() => database.close());
    rmSync(empty, { recursive: true, force: true });
    cpSync(live, empty, { recursive: true });
  } else {
    cpSync(empty, live, { recursive: true });
  }
}
