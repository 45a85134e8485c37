/** Entry point of the fake MCP server over stdio: `node --import tsx test/fakes/mcp-stdio-server.ts`. */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createFakeMcpServer } from './mcp-fake-tools.ts';

const server = createFakeMcpServer(process.env['FAKE_MCP_LABEL'] ?? 'stdio');
await server.connect(new StdioServerTransport());
process.stderr.write('fake MCP server ready\n');
