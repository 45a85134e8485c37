import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { NoteLog } from '../../agent/ports/logger.ts';
import { redactAndCut } from '../../agent/text/redact.ts';
import { boundedFetch } from '../http/bounded-body.ts';
import type { McpServerConfig } from './config.ts';

const CLIENT_INFO = { name: 'tandem', version: '0.1.0' };
/** An MCP answer over HTTP bigger than this is refused while it is read (structured content keeps 32,000 characters anyway). */
const MAX_ANSWER_BYTES = 8_000_000;
/** A stderr "line" longer than this is logged as it stands rather than held in memory. */
const MAX_PENDING = 16_384;

/** Connects to one MCP server over stdio (a child process) or Streamable HTTP; throws when it cannot. */
export async function connectMcpServer(
  name: string,
  config: McpServerConfig,
  options: { timeoutMs: number; secrets?: readonly string[]; logger?: NoteLog },
): Promise<Client> {
  const transport =
    'command' in config
      ? new StdioClientTransport({
          command: config.command,
          args: config.args,
          ...(config.env ? { env: config.env } : {}),
          ...(config.cwd ? { cwd: config.cwd } : {}),
          stderr: 'pipe',
        })
      : new StreamableHTTPClientTransport(new URL(config.url), {
          fetch: boundedFetch(MAX_ANSWER_BYTES),
          ...(config.headers ? { requestInit: { headers: config.headers } } : {}),
        });
  if (transport instanceof StdioClientTransport) {
    // A server's stderr is its log; keep it out of our stdout but visible in ours, a line at a time,
    // redacted before it is cut (a server may print the token it was started with). Whole lines, so
    // a secret split across two chunks is still seen whole.
    let pending = '';
    const log = (line: string) => {
      if (line.trim()) options.logger?.info({ mcpServer: name, stderr: redactAndCut(line.trim(), options.secrets ?? [], 500) }, 'MCP server stderr');
    };
    transport.stderr?.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString('utf8')).split('\n');
      pending = lines.pop() ?? '';
      if (pending.length > MAX_PENDING) {
        lines.push(pending);
        pending = '';
      }
      lines.forEach(log);
    });
    transport.stderr?.on('end', () => log(pending));
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
