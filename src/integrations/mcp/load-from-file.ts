import { ConfigError } from '../../config/config-error.ts';
import { mcpSecrets, readMcpConfig, type McpConfig } from './config.ts';
import type { McpLoadOptions, McpTools } from './load-mcp-tools.ts';

/**
 * TANDEM_MCP_CONFIG at start-up: a server that is down is one more problem to report, and the bot still starts
 * with the rest; a file that cannot be read or is not a valid MCP config stops start-up, as every other malformed
 * setting does (CONTRACT §2), with one line naming the variable.
 */
export async function loadMcpToolsFromFile(path: string | undefined, options: McpLoadOptions = {}): Promise<McpTools> {
  if (!path) return { tools: [], problems: [], close: async () => {} };
  const config = await mcpConfigOrRefuse(path);
  // The MCP SDK and the JSON Schema validator load only for a bot that has MCP servers.
  const { loadMcpTools } = await import('./load-mcp-tools.ts');
  return loadMcpTools(config, options);
}

/** The MCP file's header and env values, to be redacted everywhere; read first at start-up, so a bad file stops it before anything logs. */
export async function readMcpSecrets(path: string | undefined): Promise<string[]> {
  if (!path) return [];
  return mcpSecrets(await mcpConfigOrRefuse(path));
}

async function mcpConfigOrRefuse(path: string): Promise<McpConfig> {
  const config = await readMcpConfig(path);
  if (!config.ok) throw new ConfigError('TANDEM_MCP_CONFIG', config.error);
  return config.value;
}
