import type { LlmClient } from '../agent/ports/llm.ts';
import type { AnyTool } from '../agent/ports/tool.ts';
import { createSlackPoster, type SlackClient } from '../bot/index.ts';
import type { Config } from '../config/config.ts';
import { createGithubClientIfConfigured, type Octokit } from '../integrations/github/client.ts';
import { loadMcpToolsFromFile } from '../integrations/mcp/load-from-file.ts';
import type { PollTiming } from '../integrations/github/workflow-poll.ts';
import { createBuiltinTools } from '../integrations/tools/builtin-tools.ts';
import type { Logger } from '../observability/logger.ts';

/** The built-in tools plus the configured MCP servers' tools; `close` ends the MCP connections. */
export async function buildTools(
  config: Readonly<Config>,
  deps: {
    llm: LlmClient;
    slackClient: SlackClient | undefined;
    logger: Logger;
    /** The demo's: its sandbox's runs end in seconds (demo-wiring.ts). */
    poll?: Partial<PollTiming>;
    onGithubClient?: (github: Octokit | undefined) => void;
  },
): Promise<{ tools: AnyTool[]; close(): Promise<void> }> {
  const mcp = await loadMcpToolsFromFile(config.mcpConfigPath, { logger: deps.logger });
  const github = createGithubClientIfConfigured({ token: config.github.token, app: config.github.app, apiUrl: config.github.apiUrl, production: true });
  deps.onGithubClient?.(github);
  const builtin = createBuiltinTools({
    github,
    slack: deps.slackClient ? createSlackPoster(deps.slackClient) : undefined,
    llm: deps.llm,
    httpAllow: config.httpAllow,
    // A dispatch gives up a little before the executor's step timeout, so its own message (with the run URL) wins.
    poll: { defaultTimeoutS: Math.max(1, config.budgets.stepTimeoutS - 5), ...deps.poll },
  });
  return { tools: [...builtin, ...mcp.tools], close: () => mcp.close() };
}
