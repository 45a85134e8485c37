import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ToolLogger } from '../../agent/ports/tool.ts';
import type { McpServerConfig } from './config.ts';

const CLIENT_INFO = { name: 'tandem', version: '0.1.0' };

/** Connects to one MCP server over stdio (a child process) or Streamable HTTP; throws when it cannot. */
export async function connectMcpServer(name: string, config: McpServerConfig, options: { timeoutMs: number; logger?: ToolLogger }): Promise<Client> {
  const transport =
    'command' in config
      ? new StdioClientTransport({
          command: config.command,
          args: config.args,
          ...(config.env ? { env: config.env } : {}),
          ...(config.cwd ? { cwd: config.cwd } : {}),
          stderr: 'pipe',
        })
      : new StreamableHTTPClientTransport(new URL(config.url), config.headers ? { requestInit: { headers: config.headers } } : {});
  if (transport instanceof StdioClientTransport) {
    // A server's stderr is its log; keep it out of our stdout but visible in ours, a line at a time.
    transport.stderr?.on('data', (chunk: Buffer) => {
      const line = chunk.toString('utf8').trim();
      if (line) options.logger?.info({ mcpServer: name, stderr: line.slice(0, 500) }, 'MCP server stderr');
    });
  }
  const client = new Client(CLIENT_INFO);
  try {
    await client.connect(transport, { timeout: options.timeoutMs });
    return client;
  } catch (error) {
    await transport.close().catch(() => {});
    throw error;
  }
}
