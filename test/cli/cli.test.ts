import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createServer } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { migratedDataDir } from '../helpers/database.ts';
import { runTandem, type TandemProcess } from './tandem-process.ts';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The first match of `pattern` in what the process printed, waiting up to 5 s for it. */
async function printed(tandem: TandemProcess, pattern: RegExp): Promise<RegExpExecArray> {
  for (let waited = 0; waited < 5000; waited += 50) {
    const match = pattern.exec(tandem.stdout());
    if (match) return match;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nothing printed matches ${String(pattern)}:\n${tandem.stdout()}`);
}

const cwd = mkdtempSync(path.join(tmpdir(), 'tandem-cli-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

// Each test runs its own `tandem` processes, in folders of their own: they run at once (the e2e project's
// maxConcurrency), since each mostly waits on the process it started.
describe.concurrent('the tandem command', () => {
  it('explains itself with --help', async () => {
    const tandem = runTandem(['--help'], {}, cwd);
    expect(await tandem.exited).toBe(0);
    for (const verb of ['start', 'migrate', 'plan', 'runs', 'show', 'eval']) expect(tandem.stdout()).toContain(verb);
  });

  it('stops a bad setting with one line naming the variable, no stack trace', async () => {
    const tandem = runTandem(['start'], { SLACK_BOT_TOKEN: 'not-a-token', DATA_DIR: path.join(cwd, 'data') }, cwd);
    expect(await tandem.exited).toBe(1);
    expect(tandem.stderr().trim()).toBe('tandem: configuration error: SLACK_BOT_TOKEN: expected a bot token starting with xoxb-');
  });

  it('says in one line, naming DATABASE_URL and where, that the database cannot be reached', async () => {
    const tandem = runTandem(['runs'], { DATABASE_URL: 'postgres://postgres:hunter22@127.0.0.1:1/nothere' }, cwd);
    expect(await tandem.exited).toBe(1);
    expect(tandem.stderr().trim()).toBe('tandem: the database at DATABASE_URL (127.0.0.1:1/nothere) cannot be reached: ECONNREFUSED');
  });

  it('rejects an unknown command and a show without an id with usage help', async () => {
    const unknown = runTandem(['deploy'], {}, cwd);
    expect(await unknown.exited).toBe(2);
    expect(unknown.stderr()).toContain('unknown command "deploy"');
    const show = runTandem(['show'], { DATA_DIR: path.join(cwd, 'data') }, cwd);
    expect(await show.exited).toBe(2);
    expect(show.stderr()).toContain('show: expected a run id');
    // An option without its value is a usage mistake too (2), never audit's "violations found" (1).
    const audit = runTandem(['audit', '--run'], {}, cwd);
    expect(await audit.exited).toBe(2);
    expect(audit.stderr()).toContain("Option '--run <value>' argument missing");
  });

  it('tandem plan without a model or a matching runbook says in one line what to configure', async () => {
    const plan = runTandem(['plan', 'open an issue'], { DATA_DIR: path.join(cwd, 'plan'), TANDEM_RUNBOOKS_DIR: path.join(cwd, 'no-runbooks') }, cwd);
    expect(await plan.exited).toBe(1);
    expect(plan.stderr().trim()).toMatch(
      /^tandem: I have no model to plan this with and no runbook matches it\. .*set PLANNER_MODEL \(for example openai:gpt-4o\) and OPENAI_API_KEY \(or ANTHROPIC_API_KEY\)\.$/,
    );
  });

  it('tandem plan with no model, run from a folder without runbooks, plans from the bundled runbooks', async () => {
    const plan = runTandem(['plan', 'check health of http://127.0.0.1:9/healthz'], { DATA_DIR: path.join(cwd, 'bundled') }, cwd);
    expect(await plan.exited, plan.stderr()).toBe(0);
    expect(plan.stdout()).toContain('http://127.0.0.1:9/healthz');
    expect(plan.stdout()).toContain('http_check');
  });

  it('without Slack settings says what to set and serves the local workspace', async () => {
    const tandem = runTandem(['start'], { PORT: '0', DATA_DIR: path.join(cwd, 'local'), LOG_LEVEL: 'info' }, cwd);
    try {
      const running = await tandem.waitForLog('Tandem is running', 60_000);
      expect(tandem.stdout()).toContain('SLACK_BOT_TOKEN=xoxb-');
      expect(tandem.stdout()).toContain('SLACK_APP_TOKEN=xapp-');
      expect(tandem.stdout()).toContain('manifest.yml');
      // The printed address carries the workspace key; the log names only its origin, which alone gets 403.
      const workspace = (await printed(tandem, /^Local workspace: (.+)$/m))[1]!;
      expect(workspace).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?k=/);
      expect(String(running.workspace)).toBe(new URL(workspace).origin);
      expect((await fetch(workspace)).status).toBe(200);
      expect((await fetch(String(running.workspace))).status).toBe(403);
      expect(
        tandem
          .stdout()
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .join('\n'),
      ).not.toContain(new URL(workspace).searchParams.get('k'));
      expect(await (await fetch(`http://127.0.0.1:${running.port}/healthz`)).json()).toEqual({ ok: true });
      const metrics = await (await fetch(`http://127.0.0.1:${running.port}/metrics`)).text();
      expect(metrics).toContain('tandem_runs_total');
    } finally {
      tandem.child.kill('SIGTERM');
      expect(await tandem.exited).toBe(0);
    }
    expect(tandem.stderr()).not.toMatch(/\n\s+at /);
  }, 120_000);
});

describe.concurrent('start-up against a Slack API that cannot be reached', () => {
  it.each([
    ['HTTP mode', { SLACK_SIGNING_SECRET: 'secret' }],
    ['Socket Mode', { SLACK_APP_TOKEN: 'xapp-unreachable-app-token' }],
  ])(
    'in %s reports it and keeps retrying instead of crashing',
    async (mode, extra) => {
      // Socket Mode serves /healthz on PORT as given, so it gets a free port picked here.
      const port = await freePort();
      const tandem = runTandem(
        ['start'],
        {
          SLACK_BOT_TOKEN: 'xoxb-unreachable',
          SLACK_API_URL: 'http://127.0.0.1:9/api/',
          PORT: String(port),
          // Made and migrated once per worker: the first start is the local workspace test's subject above.
          DATA_DIR: await migratedDataDir(path.join(cwd, `unreachable-${mode}`)),
          ...extra,
        },
        cwd,
      );
      try {
        await tandem.waitForLog('Tandem is running', 60_000);
        await tandem.waitForLog('Slack API unreachable, retrying', 30_000);
        expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
        expect(tandem.child.exitCode).toBeNull();
        expect(tandem.stdout()).not.toContain('xoxb-unreachable');
      } finally {
        tandem.child.kill('SIGTERM');
        await tandem.exited;
      }
    },
    120_000,
  );
});
