import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { Result } from '../../agent/model/errors.ts';

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

/** Header names that never carry a credential; every other header value is treated as one. */
const PLAIN_HEADERS = new Set(['accept', 'accept-language', 'content-type', 'user-agent', 'mcp-protocol-version']);
const SECRET_NAME = /token|secret|key|pass|auth|cred|cookie|session|bearer|private|signature/i;

/**
 * Header and environment values that are credentials join the secrets redacted everywhere: every
 * header but a few plain ones, and an env value whose name says secret or which looks like one (long,
 * letters and digits, no spaces). Not every env value: `NODE_ENV=production` would blank every
 * "production" in every plan and output.
 */
export function mcpSecrets(config: McpConfig): string[] {
  const secrets = new Set<string>();
  const add = (value: string) => {
    if (value.length < 8) return;
    secrets.add(value);
    // `Authorization: Bearer <token>`: the token alone also turns up in errors and logs.
    const credential = /^(?:bearer|token|basic)\s+(\S{8,})$/i.exec(value)?.[1];
    if (credential) secrets.add(credential);
  };
  for (const server of Object.values(config.servers)) {
    if ('command' in server) {
      for (const [name, value] of Object.entries(server.env ?? {})) if (SECRET_NAME.test(name) || looksLikeCredential(value)) add(value);
    } else {
      for (const [name, value] of Object.entries(server.headers ?? {})) if (!PLAIN_HEADERS.has(name.toLowerCase())) add(value);
    }
  }
  return [...secrets];
}

function looksLikeCredential(value: string): boolean {
  return value.length >= 16 && !/\s/.test(value) && /[A-Za-z]/.test(value) && /\d/.test(value);
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
