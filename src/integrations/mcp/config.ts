import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { Result } from '../../agent/errors.ts';

const RiskMap = z.record(z.string(), z.enum(['read', 'write', 'destructive'])).describe('Risk per tool (MCP name or mcp_<server>_<tool>); default write');

const StdioServer = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().min(1).optional(),
  risk: RiskMap.optional(),
});

const HttpServer = z.strictObject({
  url: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }),
  headers: z.record(z.string(), z.string()).optional(),
  risk: RiskMap.optional(),
});

export const McpConfigSchema = z.strictObject({
  servers: z.record(z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, 'server names are letters, digits, _ or - (max 40)'), z.union([StdioServer, HttpServer])),
});

export type McpConfig = z.infer<typeof McpConfigSchema>;
export type McpServerConfig = McpConfig['servers'][string];

/** Reads the operator's MCP file (TANDEM_MCP_CONFIG); the error is one line naming the file and the problem. */
export async function readMcpConfig(path: string): Promise<Result<McpConfig>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    return { ok: false, error: `${path}: cannot read MCP config (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `${path}: not valid JSON (${(error as Error).message})` };
  }
  const parsed = McpConfigSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { ok: false, error: `${path}: ${issue.path.join('.') || '(root)'}: ${issue.message}` };
  }
  return { ok: true, value: parsed.data };
}
