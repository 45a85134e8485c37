/**
 * `tandem start --demo`: the real runtime with the outside world replaced. GitHub is the in-process
 * sandbox, the model is the scripted one, the store is a PGlite folder of its own under DATA_DIR (never
 * DATABASE_URL, so a demo run never mixes with real ones), and every setting that could reach another
 * machine (a Slack app, model keys, MCP servers, http_check hosts) is dropped.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { LlmClient } from '../agent/ports/llm.ts';
import type { Config } from '../config/config.ts';
import { startDemoMode, type DemoMode } from '../demo/demo-mode.ts';
import { isProcessAlive } from '../store/data-dir-lock.ts';
import type { DemoPresentation, WorkspacePerson } from '../workspace/local/index.ts';

export interface DemoWiring {
  config: Readonly<Config>;
  llm: LlmClient;
  workspace: { people: readonly WorkspacePerson[]; demo: DemoPresentation };
  close(): Promise<void>;
}

/** The demo's own store, beside (never inside) the real one's files. */
export const demoDataDir = (config: Readonly<Config>) => path.join(config.database.dataDir, 'demo');

export async function prepareDemo(config: Readonly<Config>, options: { runMs?: number } = {}): Promise<DemoWiring> {
  const demo = await startDemoMode(options);
  try {
    const dataDir = demoDataDir(config);
    forgetPreviousDemo(dataDir);
    return {
      config: demoConfig(config, demo, dataDir),
      llm: demo.llm,
      workspace: {
        people: demo.people.map(({ id, name, title }) => ({ id, name, title })),
        demo: { banner: demo.banner, suggestions: demo.guidedTasks },
      },
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
    slack: { botToken: undefined, appToken: undefined, signingSecret: undefined, apiUrl: config.slack.apiUrl, mode: 'none' as const },
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
 * demo would resume against a GitHub and a thread that no longer exist. A folder another demo holds is
 * left alone (opening it then says it is in use).
 */
function forgetPreviousDemo(dataDir: string): void {
  const lock = path.join(dataDir, 'tandem.pid');
  const holder = existsSync(lock) ? Number.parseInt(readFileSync(lock, 'utf8').trim(), 10) : NaN;
  if (Number.isInteger(holder) && holder !== process.pid && isProcessAlive(holder)) return;
  rmSync(path.join(dataDir, 'pglite'), { recursive: true, force: true });
}
