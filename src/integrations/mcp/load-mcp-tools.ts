import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { knownRisk } from '../../agent/decisions/approval-policy.ts';
import type { AnyTool, Risk } from '../../agent/ports/tool.ts';
import type { NoteLog } from '../../agent/ports/logger.ts';
import { mcpSecrets, type McpConfig, type McpServerConfig } from './config.ts';
import { connectMcpServer } from './connect.ts';
import { createMcpTool, type RemoteTool } from './mcp-tool.ts';
import { mcpToolName } from './tool-name.ts';

export interface McpTools {
  tools: AnyTool[];
  /** One line per server or tool that could not join ("github-extra: connect ECONNREFUSED …"); never fatal. */
  problems: string[];
  close(): Promise<void>;
}

export interface McpLoadOptions {
  connectTimeoutMs?: number;
  /** A single tool call's limit; the executor's step timeout and abort still apply. */
  callTimeoutMs?: number;
  logger?: NoteLog;
}

async function listAllTools(client: Client, timeoutMs: number): Promise<RemoteTool[]> {
  const tools: RemoteTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : {}, { timeout: timeoutMs });
    tools.push(...(page.tools as RemoteTool[]));
    cursor = page.nextCursor;
  } while (cursor && tools.length < 1_000);
  return tools;
}

/** "fetch failed" alone does not tell an operator much; add the cause (ECONNREFUSED 127.0.0.1:8080). */
function describeError(error: unknown): string {
  const message = (error as Error).message ?? String(error);
  const cause = (error as { cause?: { message?: string } }).cause;
  return cause?.message && !message.includes(cause.message) ? `${message} (${cause.message})` : message;
}

/**
 * The configured risk by own key only (a tool named `constructor` must not find Object's), default
 * write; a value that is not read, write or destructive counts as destructive.
 */
function riskFor(server: string, tool: string, config: McpServerConfig): Risk {
  const risks = config.risk ?? {};
  const key = [tool, mcpToolName(server, tool)].find((name) => Object.hasOwn(risks, name));
  return key === undefined ? 'write' : knownRisk(risks[key]);
}

/** Connects every configured server at once; a server that is down costs only its own tools. */
export async function loadMcpTools(config: McpConfig, options: McpLoadOptions = {}): Promise<McpTools> {
  const timeoutMs = options.connectTimeoutMs ?? 10_000;
  const callTimeoutMs = options.callTimeoutMs ?? 600_000;
  const clients: Client[] = [];
  const tools: AnyTool[] = [];
  const problems: string[] = [];
  const names = new Set<string>();

  const connected = await Promise.all(
    Object.entries(config.servers).map(async ([server, serverConfig]) => {
      let client: Client | undefined;
      try {
        client = await connectMcpServer(server, serverConfig, {
          timeoutMs,
          secrets: mcpSecrets(config),
          ...(options.logger ? { logger: options.logger } : {}),
        });
        const remote = await listAllTools(client, timeoutMs);
        clients.push(client);
        return { server, serverConfig, client, remote };
      } catch (error) {
        await client?.close().catch(() => {});
        problems.push(`${server}: ${describeError(error)}`);
        return undefined;
      }
    }),
  );

  for (const [server, serverConfig] of Object.entries(config.servers)) {
    for (const [tool, risk] of Object.entries(serverConfig.risk ?? {})) {
      if (knownRisk(risk) !== risk) problems.push(`${server}: risk "${risk}" for ${tool} is not read, write or destructive; ${tool} counts as destructive`);
    }
  }
  for (const entry of connected) {
    if (!entry) continue;
    for (const remote of entry.remote) {
      const name = mcpToolName(entry.server, remote.name);
      if (names.has(name)) {
        problems.push(`${entry.server}: tool "${remote.name}" skipped, its name ${name} is already taken`);
        continue;
      }
      try {
        tools.push(
          createMcpTool({ server: entry.server, remote, client: entry.client, risk: riskFor(entry.server, remote.name, entry.serverConfig), callTimeoutMs }),
        );
        names.add(name);
      } catch (error) {
        problems.push(`${entry.server}: tool "${remote.name}" skipped, its input schema is unusable (${(error as Error).message})`);
      }
    }
  }
  for (const problem of problems) options.logger?.warn({ problem }, 'MCP server or tool not available');

  return {
    tools,
    problems,
    close: async () => {
      await Promise.all(clients.map((client) => client.close().catch(() => {})));
    },
  };
}
