/**
 * `tandem runs|show|audit|prune` while `tandem start` runs on the embedded store (no DATABASE_URL): one process may
 * open a PGlite folder, so the running bot runs them on its own store for the CLI, over 127.0.0.1 with the token of
 * DATA_DIR's control file. Nobody else can make it run one: no token, a wrong token, another command, a huge body.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunStore, openDatabase } from '../../src/store/index.ts';
import { runTandem, type TandemProcess } from './tandem-process.ts';

const cwd = mkdtempSync(path.join(tmpdir(), 'tandem-cli-running-'));
const dataDir = path.join(cwd, 'data');
const env = { PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info' };
const plan = {
  schemaVersion: 1 as const,
  goal: 'Check the status page',
  confidence: 0.9,
  steps: [{ id: 's1', title: 'Check it', tool: 'http_check', args: { url: 'http://127.0.0.1:9/' }, dependsOn: [] }],
  rollback: [],
};
let runId = '';
let bot: TandemProcess;

/** Runs the CLI to its end; its exit code and words. */
async function cli(...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const tandem = runTandem(args, env, cwd);
  const code = await tandem.exited;
  return { code, out: tandem.stdout(), err: tandem.stderr() };
}

const control = () => JSON.parse(readFileSync(path.join(dataDir, 'tandem-cli.json'), 'utf8')) as { port: number; token: string; pid: number };
const post = (body: string, token?: string) =>
  fetch(`http://127.0.0.1:${control().port}/tandem/cli`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body,
  });

beforeAll(async () => {
  // A run stored before the bot starts (the folder is free then).
  const database = await openDatabase({ dataDir });
  await database.migrate();
  const store = createRunStore(database.db);
  const run = await store.createRun({ task: 'check the status page', requester: 'U1', conversation: { channel: 'C1', threadTs: '1.1' }, origin: 'mention' });
  await store.addPlanVersion({ runId: run.id, plan, authorKind: 'planner', authorId: 'openai:gpt-4o', parentVersion: null, reason: null });
  await database.close();
  runId = run.id;
  bot = runTandem(['start'], env, cwd);
  await bot.waitForLog('Tandem is running', 60_000);
}, 90_000);

afterAll(async () => {
  bot?.child.kill('SIGTERM');
  await bot?.exited;
  rmSync(cwd, { recursive: true, force: true });
});

describe('the store commands while the bot runs on the embedded store', () => {
  it('list, show, audit and prune through the running bot, with their usual words and exit codes', async () => {
    const runs = await cli('runs', '--limit', '5');
    expect(runs, runs.err).toMatchObject({ code: 0, err: '' });
    expect(runs.out).toContain(runId);
    const show = await cli('show', runId);
    expect(show.code, show.err).toBe(0);
    expect(show.out).toContain('Check the status page');
    expect(show.out).toContain('openai:gpt-4o');
    expect(await cli('show', 'run_missing')).toMatchObject({ code: 1, err: 'tandem: no run with id run_missing. List them with: tandem runs\n' });
    expect(await cli('audit')).toMatchObject({ code: 0, out: '1 run checked: no violations\n' });
    // A stray word is a usage mistake (2), as in every other command.
    expect(await cli('runs', '--limit', '5', 'extra')).toMatchObject({ code: 2, err: expect.stringContaining('runs takes no words (got "extra")') });
    expect((await cli('prune', '--older-than', '30')).out).toMatch(/^pruned 0 run\(s\) that finished before /);
    // A usage mistake is said as the CLI says it, with its exit code.
    expect(await cli('prune', '--older-than', '1.5')).toMatchObject({ code: 2, err: 'tandem: --older-than: expected a whole number of days, e.g. 90\n' });
    // 0 days: every finished run, whenever it finished (test/store/prune.test.ts shows which rows go); the audit still reads the run.
    expect(await cli('prune', '--older-than', '0')).toMatchObject({ code: 0, out: expect.stringMatching(/^pruned [01] run\(s\) that finished before /) });
    expect(await cli('audit')).toMatchObject({ code: 0, out: '1 run checked: no violations\n' });
  }, 90_000);

  it('the control file is the owner’s only, and names this bot', () => {
    expect(statSync(path.join(dataDir, 'tandem-cli.json')).mode & 0o777).toBe(0o600);
    expect(control().pid).toBe(bot.child.pid);
  });

  it('runs nothing for a request without the token, with another token, or for anything but a store command', async () => {
    const asked = JSON.stringify({ command: 'prune', args: [], options: { olderThan: '1' } });
    expect((await post(asked)).status).toBe(403);
    expect((await post(asked, 'f'.repeat(64))).status).toBe(403);
    expect((await post(asked, control().token.slice(1))).status).toBe(403);
    const { token } = control();
    expect((await post(JSON.stringify({ command: 'start', args: [], options: {} }), token)).status).toBe(400);
    expect((await post(JSON.stringify({ command: 'runs', args: ['x'.repeat(100_000)], options: {} }), token)).status).toBe(400);
    expect((await post('not json', token)).status).toBe(400);
    const ok = await post(JSON.stringify({ command: 'runs', args: [], options: { limit: '1' } }), token);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ exitCode: 0, stdout: expect.stringContaining(runId) });
  });

  it('once the bot stops, the control file is gone and the CLI opens the store itself', async () => {
    bot.child.kill('SIGTERM');
    expect(await bot.exited).toBe(0);
    expect(existsSync(path.join(dataDir, 'tandem-cli.json'))).toBe(false);
    const runs = await cli('runs');
    expect(runs.code, runs.err).toBe(0);
    expect(runs.out).toContain(runId);
  }, 60_000);
});
