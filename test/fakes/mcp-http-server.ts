/** The fake MCP server over Streamable HTTP on 127.0.0.1, stateless: a fresh server per request. */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createFakeMcpServer } from './mcp-fake-tools.ts';

export interface FakeMcpHttp {
  url: string;
  /** Authorization headers seen, to check configured headers are sent. */
  authorizations: (string | undefined)[];
  close(): Promise<void>;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

export async function startFakeMcpHttp(): Promise<FakeMcpHttp> {
  const authorizations: (string | undefined)[] = [];
  const http = createServer((req, res) => {
    authorizations.push(req.headers.authorization);
    void (async () => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const server = createFakeMcpServer('http');
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, await readJson(req));
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    authorizations,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
