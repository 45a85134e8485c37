import { Writable } from 'node:stream';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createSlackApp } from '../../src/bot/create-slack-app.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { SlackDriver } from '../../src/workspace/slack-fake/index.ts';
import { BOT_TOKEN, eventually, MemoryRunQueries, RecordingAgent, SIGNING_SECRET } from '../fakes/slack-harness.ts';
import { approversGate } from '../helpers/policy-gate.ts';

/** A port nobody listens on: Slack "unreachable". */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function capturingLogger() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return {
    lines,
    logger: createLogger({ level: 'info', secrets: [BOT_TOKEN], destination: destination as unknown as Parameters<typeof createLogger>[0]['destination'] }),
  };
}

describe('start-up', () => {
  it('builds and serves while the Slack API is unreachable, logs that it is retrying, and still takes mentions', async () => {
    const apiUrl = `http://127.0.0.1:${await closedPort()}/api/`;
    const { lines, logger } = capturingLogger();
    const agent = new RecordingAgent();
    const slack = createSlackApp({
      config: { slack: { botToken: BOT_TOKEN, appToken: undefined, signingSecret: SIGNING_SECRET, apiUrl, mode: 'http' }, port: 0 },
      agent,
      runs: new MemoryRunQueries(),
      logger,
      policy: approversGate(),
    });
    const { port } = await slack.start(0);
    try {
      const driver = new SlackDriver({ eventsUrl: `http://127.0.0.1:${port}/slack/events`, signingSecret: SIGNING_SECRET });
      const response = await driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> check CI' });
      expect(response.status).toBe(200);
      await eventually(() => expect(agent.callsOf('startRun')).toHaveLength(1));
      await eventually(() => expect(lines.join('')).toContain('Slack API unreachable, retrying'), 15_000);
      expect(lines.join('')).not.toContain(BOT_TOKEN);
    } finally {
      await slack.stop();
    }
  });

  it('builds in Socket Mode without touching the network', () => {
    const slack = createSlackApp({
      config: { slack: { botToken: BOT_TOKEN, appToken: 'xapp-1-test', signingSecret: undefined, apiUrl: 'http://127.0.0.1:9/api/', mode: 'socket' }, port: 0 },
      agent: new RecordingAgent(),
      runs: new MemoryRunQueries(),
      logger: createLogger({ level: 'silent', secrets: [] }),
      policy: approversGate(),
    });
    expect(slack.app).toBeDefined();
  });
});
