import { mcpSecrets, readMcpConfig } from './config.ts';
import type { McpLoadOptions, McpTools } from './load-mcp-tools.ts';

/**
 * TANDEM_MCP_CONFIG at start-up: an unreadable or invalid file is one more problem to report, like a
 * server that is down; the bot still starts with its built-in tools.
 */
export async function loadMcpToolsFromFile(path: string | undefined, options: McpLoadOptions = {}): Promise<McpTools> {
  if (!path) return { tools: [], problems: [], close: async () => {} };
  const config = await readMcpConfig(path);
  if (!config.ok) {
    options.logger?.warn({ problem: config.error }, 'MCP config not loaded');
    return { tools: [], problems: [config.error], close: async () => {} };
  }
  // The MCP SDK and the JSON Schema validator load only for a bot that has MCP servers.
  const { loadMcpTools } = await import('./load-mcp-tools.ts');
  return loadMcpTools(config.value, options);
}

/** The MCP file's header and env values, to be redacted everywhere; none when there is no valid file. */
export async function readMcpSecrets(path: string | undefined): Promise<string[]> {
  if (!path) return [];
  const config = await readMcpConfig(path);
  return config.ok ? mcpSecrets(config.value) : [];
}
