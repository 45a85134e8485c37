import type { Config } from '../config/config.ts';
import { readMcpSecrets } from '../integrations/mcp/load-from-file.ts';

/**
 * The config with the MCP file's header and env values added to its secrets, so the logger, the
 * store, prompts and Slack redact them like any configured token. Read before anything logs.
 */
export async function withMcpSecrets(config: Readonly<Config>): Promise<Readonly<Config>> {
  const extra = (await readMcpSecrets(config.mcpConfigPath)).filter((secret) => !config.secrets.includes(secret));
  return extra.length ? Object.freeze({ ...config, secrets: [...config.secrets, ...extra] }) : config;
}
