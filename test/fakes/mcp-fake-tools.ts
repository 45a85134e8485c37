/**
 * The tools of the fake MCP servers, on the SDK's low-level Server so their JSON Schemas are sent exactly
 * as written (including a `not` that zod cannot express) and nothing is validated server-side:
 * what reaches a tool here shows what our client let through.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

export const FAKE_MCP_TOOLS = [
  {
    name: 'get_status',
    description: 'Status of a service',
    inputSchema: { type: 'object', properties: { service: { type: 'string' }, verbose: { type: 'boolean' } }, required: ['service'], additionalProperties: false },
  },
  { name: 'echo', description: 'Echo text back', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  { name: 'fail', description: 'Always fails', inputSchema: { type: 'object', properties: {} } },
  {
    name: 'Set-Flag',
    description: 'Set a feature flag (any value but "forbidden")',
    inputSchema: { type: 'object', properties: { value: { type: 'string', not: { const: 'forbidden' } } }, required: ['value'] },
  },
];

export function createFakeMcpServer(label: string): Server {
  const server = new Server({ name: `fake-${label}`, version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: FAKE_MCP_TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    switch (request.params.name) {
      case 'get_status':
        return {
          content: [{ type: 'text', text: `${String(args['service'])} is healthy` }],
          structuredContent: { service: args['service'], healthy: true, via: label },
        };
      case 'echo':
        return { content: [{ type: 'text', text: `${label} says ${String(args['text'])}` }] };
      case 'fail':
        return { isError: true, content: [{ type: 'text', text: 'database is locked' }] };
      case 'Set-Flag':
        return { content: [{ type: 'text', text: `flag set to ${String(args['value'])}` }] };
      default:
        return { isError: true, content: [{ type: 'text', text: `unknown tool ${request.params.name}` }] };
    }
  });
  return server;
}
