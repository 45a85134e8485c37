import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyTool } from '../../src/agent/ports/tool.ts';
import { readMcpConfig, type McpConfig } from '../../src/integrations/mcp/config.ts';
import { loadMcpToolsFromFile, readMcpSecrets } from '../../src/integrations/mcp/load-from-file.ts';
import { loadMcpTools, type McpTools } from '../../src/integrations/mcp/load-mcp-tools.ts';
import { toolCatalogue } from '../../src/integrations/tools/catalogue.ts';
import { FAKE_MCP_TOOLS } from '../fakes/mcp-fake-tools.ts';
import { startFakeMcpHttp, type FakeMcpHttp } from '../fakes/mcp-http-server.ts';
import { errorOf, okOutput, runTool } from './tool-context.ts';
import { tempDir } from '../helpers/temp-dir.ts';

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

let http: FakeMcpHttp;
let mcp: McpTools;
let tools: Map<string, AnyTool>;

beforeAll(async () => {
  http = await startFakeMcpHttp();
  const config: McpConfig = {
    servers: {
      local: {
        command: process.execPath,
        args: ['--import', 'tsx', resolve('test/fakes/mcp-stdio-server.ts')],
        env: { FAKE_MCP_LABEL: 'local' },
        cwd: process.cwd(),
        risk: { get_status: 'read', mcp_local_Set_Flag: 'destructive' },
      },
      remote: { url: http.url, headers: { Authorization: 'Bearer mcp-test-key' } },
      down: { url: `http://127.0.0.1:${await closedPort()}/mcp` },
      missing: { command: join(tmpdir(), 'no-such-mcp-server-binary'), args: [] },
    },
  };
  mcp = await loadMcpTools(config, { connectTimeoutMs: 20_000 });
  tools = new Map(mcp.tools.map((tool) => [tool.name, tool]));
});
afterAll(async () => {
  await mcp?.close();
  await http?.close();
});

const tool = (name: string) => {
  const found = tools.get(name);
  if (!found) throw new Error(`no tool ${name}; have ${[...tools.keys()].join(', ')}`);
  return found;
};

describe('MCP servers', () => {
  it('adds the tools of live servers as mcp_<server>_<tool> and reports servers that are down', () => {
    const expected = ['local', 'remote'].flatMap((server) => ['get_status', 'echo', 'fail', 'Set_Flag'].map((name) => `mcp_${server}_${name}`));
    expect([...tools.keys()].sort()).toEqual(expected.sort());
    expect(mcp.problems, mcp.problems.join('\n')).toHaveLength(2);
    expect(mcp.problems.find((p) => p.startsWith('down: '))).toMatch(/ECONNREFUSED/);
    expect(mcp.problems.find((p) => p.startsWith('missing: '))).toBeDefined();
  });

  it('takes risk from the config, write otherwise', () => {
    expect(tool('mcp_local_get_status').risk).toBe('read');
    expect(tool('mcp_local_Set_Flag').risk).toBe('destructive');
    expect(tool('mcp_local_echo').risk).toBe('write');
    expect(tool('mcp_remote_get_status').risk).toBe('write');
  });

  it('calls tools over stdio and Streamable HTTP: structured content as is, otherwise the text', async () => {
    expect(okOutput(await runTool(tool('mcp_local_get_status'), { service: 'api' }))).toEqual({ service: 'api', healthy: true, via: 'local' });
    expect(okOutput(await runTool(tool('mcp_remote_echo'), { text: 'hi' }))).toEqual({ text: 'http says hi' });
    expect(http.authorizations).toContain('Bearer mcp-test-key');
  });

  it('turns a tool-reported error into a step error', async () => {
    expect(errorOf(await runTool(tool('mcp_remote_fail'), {})).message).toBe('MCP remote/fail failed: database is locked');
  });

  it('validates args against the server schema, with ajv where zod cannot express it', async () => {
    const status = tool('mcp_local_get_status').input;
    expect(status.safeParse({}).success).toBe(false);
    expect(status.safeParse({ service: 'api', extra: 1 }).success).toBe(false);
    expect(status.safeParse({ service: 'api', verbose: true }).success).toBe(true);
    const flag = tool('mcp_local_Set_Flag');
    expect(flag.input.safeParse({ value: 'forbidden' }).success).toBe(false);
    expect(okOutput(await runTool(flag, { value: 'on' }))).toEqual({ text: 'flag set to on' });
  });

  it('shows the planner the schema exactly as the server gave it', () => {
    const entry = toolCatalogue([tool('mcp_local_Set_Flag')])[0]!;
    expect(entry.inputSchema).toEqual(FAKE_MCP_TOOLS.find((t) => t.name === 'Set-Flag')!.inputSchema);
    expect(entry.description).toContain('Set a feature flag');
  });
});

describe('MCP config file', () => {
  it('reads a valid file and names the file and field of an invalid one', async () => {
    const dir = await tempDir('tandem-mcp-');
    const good = join(dir, 'good.json');
    await writeFile(good, JSON.stringify({ servers: { docs: { url: 'http://127.0.0.1:1/mcp' }, fs: { command: 'mcp-fs', args: ['/srv'] } } }));
    expect(await readMcpConfig(good)).toMatchObject({ ok: true, value: { servers: { fs: { command: 'mcp-fs', args: ['/srv'] } } } });

    const bad = join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify({ servers: { docs: { url: 'ftp://nope' } } }));
    const result = await readMcpConfig(bad);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(new RegExp(`^${bad}: servers\\.docs`));

    expect(await readMcpConfig(join(dir, 'absent.json'))).toEqual({ ok: false, error: `${join(dir, 'absent.json')}: cannot read MCP config (ENOENT)` });
  });

  it('an invalid or missing file stops start-up with the config error naming TANDEM_MCP_CONFIG (CONTRACT §2)', async () => {
    const dir = await tempDir('tandem-mcp-');
    const broken = join(dir, 'broken.json');
    await writeFile(broken, '{ "servers": ');
    for (const load of [loadMcpToolsFromFile, readMcpSecrets]) {
      await expect(load(broken)).rejects.toMatchObject({
        name: 'ConfigError',
        message: expect.stringMatching(/^TANDEM_MCP_CONFIG: .*broken\.json: not valid JSON/),
      });
      await expect(load(join(dir, 'absent.json'))).rejects.toMatchObject({
        name: 'ConfigError',
        message: expect.stringMatching(/^TANDEM_MCP_CONFIG: .*absent\.json: cannot read MCP config \(ENOENT\)$/),
      });
    }
  });
});
