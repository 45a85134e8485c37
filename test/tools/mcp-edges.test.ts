import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limitOutput } from '../../src/agent/text/output-limit.ts';
import type { AnyTool } from '../../src/agent/ports/tool.ts';
import { mcpSecrets, type McpConfig } from '../../src/integrations/mcp/config.ts';
import { loadMcpTools, type McpTools } from '../../src/integrations/mcp/load-mcp-tools.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { okOutput, runTool } from './tool-context.ts';

/** Lives only in the server's env and an HTTP header: nothing but our config knows it is a secret. */
const ENV_SECRET = 'mcp-env-Secret-0042';
const HEADER_TOKEN = 'mcp-header-Token-0043';

const config: McpConfig = {
  servers: {
    stranger: {
      command: process.execPath,
      args: ['--import', 'tsx', resolve('test/fakes/mcp-stdio-server.ts')],
      env: { FAKE_MCP_LABEL: 'stranger', FAKE_MCP_SECRET: ENV_SECRET },
      cwd: process.cwd(),
      risk: { get_status: 'read', echo: 'reed' },
    },
    remote: { url: 'http://127.0.0.1:1/mcp', headers: { Authorization: `Bearer ${HEADER_TOKEN}` } },
  },
};

const lines: string[] = [];
let mcp: McpTools;
let tools: Map<string, AnyTool>;
const secrets = mcpSecrets(config);

beforeAll(async () => {
  const logger = createLogger({ level: 'info', secrets, destination: { write: (line: string) => void lines.push(line) } });
  mcp = await loadMcpTools(config, { connectTimeoutMs: 20_000, logger });
  tools = new Map(mcp.tools.map((tool) => [tool.name, tool]));
});
afterAll(() => mcp?.close());

describe('an MCP server a stranger wrote', () => {
  it('header and env values that are credentials are secrets, the bearer token alone too; a label is not', () => {
    expect(secrets).toEqual(expect.arrayContaining([ENV_SECRET, `Bearer ${HEADER_TOKEN}`, HEADER_TOKEN]));
    expect(secrets).not.toContain('stranger');
  });

  it('its stderr is redacted before it is logged, even when it prints a secret in two pieces', async () => {
    await expect.poll(() => lines.join(''), { timeout: 10_000 }).toContain('starting with token [redacted] and');
    expect(lines.join('')).not.toContain(ENV_SECRET);
  });

  it('a tool named constructor or toString gets the default risk, not one found on Object.prototype', () => {
    expect(tools.get('mcp_stranger_constructor')?.risk).toBe('write');
    expect(tools.get('mcp_stranger_toString')?.risk).toBe('write');
    expect(tools.get('mcp_stranger_get_status')?.risk).toBe('read');
  });

  it('a risk that is not read, write or destructive counts as destructive, and is reported', () => {
    expect(tools.get('mcp_stranger_echo')?.risk).toBe('destructive');
    expect(mcp.problems.join('\n')).toContain('risk "reed" for echo is not read, write or destructive');
  });

  it('structured content of megabytes is cut to a preview, and what is stored holds no secret', async () => {
    const output = okOutput(await runTool(tools.get('mcp_stranger_huge')!, {}));
    expect(output).toMatchObject({ truncated: true, note: expect.stringContaining('over the limit of 32000') });
    expect((output['preview'] as string).length).toBeLessThanOrEqual(32_000);
    const stored = JSON.stringify(limitOutput(output, secrets));
    expect(stored).not.toContain(ENV_SECRET);
    expect(stored.length).toBeLessThan(33_000);
  });
});
