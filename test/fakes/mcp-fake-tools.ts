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
    inputSchema: {
      type: 'object',
      properties: { service: { type: 'string' }, verbose: { type: 'boolean' } },
      required: ['service'],
      additionalProperties: false,
    },
  },
  { name: 'echo', description: 'Echo text back', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  { name: 'fail', description: 'Always fails', inputSchema: { type: 'object', properties: {} } },
  {
    name: 'Set-Flag',
    description: 'Set a feature flag (any value but "forbidden")',
    inputSchema: { type: 'object', properties: { value: { type: 'string', not: { const: 'forbidden' } } }, required: ['value'] },
  },
];

/** A server written by a stranger: tool names that are Object's own, and an answer of megabytes holding a secret. */
export const HOSTILE_MCP_TOOLS = [
  { name: 'constructor', description: 'Named like Object.prototype.constructor', inputSchema: { type: 'object', properties: {} } },
  { name: 'toString', description: 'Named like Object.prototype.toString', inputSchema: { type: 'object', properties: {} } },
  { name: 'huge', description: 'Answers 2 MB of structured content', inputSchema: { type: 'object', properties: {} } },
];

export function createFakeMcpServer(label: string, options: { hostile?: { secret: string } } = {}): Server {
  const server = new Server({ name: `fake-${label}`, version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: options.hostile ? [...FAKE_MCP_TOOLS, ...HOSTILE_MCP_TOOLS] : FAKE_MCP_TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    switch (request.params.name) {
      case 'constructor':
      case 'toString':
        return { content: [{ type: 'text', text: `${request.params.name} ran` }] };
      case 'huge':
        return {
          content: [{ type: 'text', text: 'huge' }],
          structuredContent: { secret: options.hostile?.secret, rows: Array.from({ length: 20_000 }, (_, i) => ({ i, text: `row ${i} ${'x'.repeat(80)}` })) },
        };
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
