import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { Result } from '../../agent/errors.ts';

/** Any string is accepted so one typo does not cost the whole file; a value other than read/write/destructive counts as destructive. */
const RiskMap = z.record(z.string(), z.string()).describe('Risk per tool (MCP name or mcp_<server>_<tool>): read, write or destructive; default write');

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

/** Header and environment values are credentials more often than not: they join the secrets that are redacted everywhere. */
export function mcpSecrets(config: McpConfig): string[] {
  const values = Object.values(config.servers).flatMap((server) => Object.values('command' in server ? (server.env ?? {}) : (server.headers ?? {})));
  const secrets = new Set<string>();
  for (const value of values) {
    if (value.length < 8) continue;
    secrets.add(value);
    // `Authorization: Bearer <token>` — the token alone also turns up in errors and logs.
    const credential = /^(?:bearer|token|basic)\s+(\S{8,})$/i.exec(value)?.[1];
    if (credential) secrets.add(credential);
  }
  return [...secrets];
}
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
