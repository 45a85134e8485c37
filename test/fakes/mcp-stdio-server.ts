/** Entry point of the fake MCP server over stdio: `node --import tsx test/fakes/mcp-stdio-server.ts`. */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createFakeMcpServer } from './mcp-fake-tools.ts';

const secret = process.env['FAKE_MCP_SECRET'];
const server = createFakeMcpServer(process.env['FAKE_MCP_LABEL'] ?? 'stdio', secret ? { hostile: { secret } } : {});
await server.connect(new StdioServerTransport());
process.stderr.write('fake MCP server ready\n');
// A careless server prints the credential it was started with, split across two writes.
if (secret) {
  process.stderr.write(`starting with token ${secret.slice(0, 6)}`);
  setTimeout(() => process.stderr.write(`${secret.slice(6)} and "quotes"\n`), 20);
}
