import { z } from 'zod';
import { createAgent, type Agent } from '../../src/agent/agent.ts';
import { LlmError } from '../../src/agent/model/errors.ts';
import type { Plan } from '../../src/agent/model/plan/plan.ts';
import type { LlmClient, LlmRequest, LlmResponse } from '../../src/agent/ports/llm.ts';
import type { RunStore } from '../../src/agent/ports/run-store.ts';
import type { FeedbackLog, SlackInbox } from '../../src/bot/ports.ts';
import type { AnyTool, Tool } from '../../src/agent/ports/tool.ts';
import type { RunbookMatcher } from '../../src/agent/context.ts';
import type { RunbookSaver } from '../../src/bot/bot-deps.ts';
import type { SlackClient } from '../../src/bot/surface/slack-client.ts';
import { createLogger } from '../../src/observability/logger.ts';
import type { ScheduleService } from '../../src/schedules/index.ts';
import { createSlackApp, type SlackApp } from '../../src/bot/create-slack-app.ts';
import { createSlackGroupDirectory } from '../../src/bot/surface/slack-group-directory.ts';
import { approversGate } from '../helpers/policy-gate.ts';
import type { PolicyGate } from '../../src/agent/decisions/policy-approval.ts';
import { createSlackClient } from '../../src/bot/surface/slack-client.ts';
import { SlackSurface } from '../../src/bot/surface/slack-surface.ts';
import { SlackDriver, SlackFakeServer, type FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import { BOT_TOKEN, SIGNING_SECRET, silentLogger } from './slack-harness.ts';
import { FakeSocketModeServer } from './socket-mode-server.ts';

export const APP_TOKEN = 'xapp-1-A1-test';

/** Tools with names of our own, so the test controls outcomes; risk is what the approval policy sees. */
export class ToolBench {
  /** How many more calls of change_thing fail before it works. */
  changeFailures = 0;
  /** How many more calls of change_thing make their change and then fail, naming it by its address (taken before changeFailures). */
  changeMadeThenFailures = 0;
  /** How many more calls of check_thing (a read) fail before it works. */
  checkFailures = 0;
  /** How many more calls of undo_thing fail. */
  undoFailures = 0;
  readonly calls: string[] = [];

  tools(): AnyTool[] {
    const input = z.object({ target: z.string() });
    const tool = (name: string, risk: Tool['risk'], run: (args: { target: string }) => Awaited<ReturnType<Tool['run']>>): Tool<{ target: string }> => ({
      name,
      description: `${name} (test tool)`,
      input,
      risk,
      run: async (args) => {
        this.calls.push(`${name}:${args.target}`);
        return run(args);
      },
    });
    return [
      tool('check_thing', 'read', (a) => {
        if (this.checkFailures > 0) {
          this.checkFailures -= 1;
          return { status: 'error', error: { message: `could not check ${a.target}: the service answered 502` } };
        }
        return { status: 'ok', output: { checked: a.target, url: `https://example.test/check/${a.target}` } };
      }),
      tool('change_thing', 'write', (a) => {
        if (this.changeMadeThenFailures > 0) {
          this.changeMadeThenFailures -= 1;
          const url = `https://example.test/change/${a.target}/${this.calls.length}`;
          return { status: 'error', error: { message: `the change of ${a.target} was made but its run concluded failure`, url } };
        }
        if (this.changeFailures > 0) {
          this.changeFailures -= 1;
          return { status: 'error', error: { message: `could not change ${a.target}: conflict` } };
        }
        return { status: 'ok', output: { changed: a.target, url: `https://example.test/change/${a.target}` } };
      }),
      tool('drop_thing', 'destructive', (a) => ({ status: 'ok', output: { dropped: a.target } })),
      tool('undo_thing', 'write', (a) => {
        if (this.undoFailures > 0) {
          this.undoFailures -= 1;
          return { status: 'error', error: { message: `could not undo ${a.target}: locked` } };
        }
        return { status: 'ok', output: { undone: a.target } };
      }),
      tool('ask_thing', 'read', (a) => ({ status: 'pause', question: `Which ${a.target} should I use?` })),
      // As ask_human: its answer is a person's words, so a write whose target it fills waits for a Confirm.
      { ...tool('ask_person', 'read', (a) => ({ status: 'pause', question: `Which ${a.target} should I change?` })), outputFrom: 'person' as const },
    ];
  }
}

export function runbookPlan(task: string): Plan | undefined {
  const base = { schemaVersion: 1 as const, confidence: 0.9, questions: undefined };
  const check = { id: 's1', title: 'Check the thing', tool: 'check_thing', args: { target: 'alpha' }, dependsOn: [] };
  const change = { id: 's2', title: 'Change the thing', tool: 'change_thing', args: { target: 'alpha' }, dependsOn: ['s1'] };
  const undo = { id: 'r1', title: 'Undo the change', tool: 'undo_thing', args: { target: 'alpha' }, undoes: 's2' };
  const undoCheck = { id: 'r0', title: 'Note the check', tool: 'undo_thing', args: { target: 'check' }, undoes: 's1' };
  if (task.includes('safe change')) return { ...base, goal: 'Change alpha safely', steps: [check, change], rollback: [undo] };
  if (task.includes('destroy'))
    return {
      ...base,
      goal: 'Drop alpha',
      steps: [check, { id: 's2', title: 'Drop the thing', tool: 'drop_thing', args: { target: 'alpha' }, dependsOn: ['s1'] }],
      rollback: [],
    };
  if (task.includes('ask first')) {
    const ask = { id: 's1', title: 'Ask which one', tool: 'ask_thing', args: { target: 'cluster' }, dependsOn: [] };
    return { ...base, goal: 'Change the chosen thing', steps: [ask, { ...change, args: { target: '{{steps.s1.output.answer}}' } }], rollback: [] };
  }
  if (task.includes('ask then confirm')) {
    const ask = { id: 's1', title: 'Ask which one', tool: 'ask_person', args: { target: 'cluster' }, dependsOn: [] };
    return { ...base, goal: 'Change the cluster named', steps: [ask, { ...change, args: { target: '{{steps.s1.output.answer}}' } }], rollback: [] };
  }
  if (task.includes('parallel change')) {
    // Two changes side by side, neither waiting on the other: both may fail at once.
    const beside = (id: string, target: string) => ({ id, title: `Change ${target}`, tool: 'change_thing', args: { target }, dependsOn: [] });
    return { ...base, goal: 'Change beta and gamma', steps: [beside('s1', 'beta'), beside('s2', 'gamma')], rollback: [] };
  }
  if (task.includes('flaky change')) return { ...base, goal: 'Change alpha (flaky)', steps: [check, change], rollback: [undoCheck, undo] };
  return undefined;
}

/**
 * A planner model that exists only while answers are queued (so a failed step escalates instead of
 * replanning on its own) and refuses anything else, so an unplanned call fails the test. A queued
 * LlmError is the provider's failure for that call.
 */
export class QueuedPlanner implements LlmClient {
  readonly answers: unknown[] = [];
  readonly requests: LlmRequest<unknown>[] = [];
  has(role: string): boolean {
    return role === 'planner' && this.answers.length > 0;
  }
  async generate<T>(request: LlmRequest<T>): Promise<LlmResponse<T>> {
    this.requests.push(request as LlmRequest<unknown>);
    const answer = request.role === 'planner' ? this.answers.shift() : undefined;
    if (answer instanceof LlmError) throw answer;
    if (answer === undefined) throw new LlmError('unavailable', `unexpected ${request.role} call: no answer queued`);
    return { value: request.schema.parse(answer), usage: { inputTokens: 100, outputTokens: 50 }, provider: 'fake', model: 'fake-planner', costUsd: 0.001 };
  }
}

export interface SlackE2E {
  fake: SlackFakeServer;
  driver: SlackDriver;
  slack: SlackApp;
  agent: Agent;
  tools: ToolBench;
  planner: QueuedPlanner;
  /** The Socket Mode side of Slack, when the bot was started in Socket Mode. */
  socket: FakeSocketModeServer | undefined;
  /** The thread of a run started by a mention at `ts`. */
  /** The bot-token client the surface posts with (e.g. for a scheduler's thread roots). */
  client: SlackClient;
  thread(ts: string): FakeMessage[];
  /** Waits until a message in the thread matches. */
  waitForMessage(ts: string, match: (m: FakeMessage) => boolean, what: string): Promise<FakeMessage>;
  stop(): Promise<void>;
}

export const APPROVERS = ['UAPP1', 'UAPP2', 'SOPS'];

/** The whole product path: real Bolt, the real agent and store, the Slack surface, the fake Web API. */
export interface SlackE2EOptions {
  /** A runbook catalog instead of the built-in test runbooks; it also backs "Save as runbook". */
  runbooks?: RunbookMatcher & RunbookSaver;
  /** Schedules from Slack; a function so it can use the agent and client built here. */
  schedules?: (parts: { agent: Agent; client: SlackClient }) => ScheduleService;
  /** Where feedback on summaries goes (the store's, in tests that read it back). */
  feedback?: FeedbackLog;
  /** Connect through Socket Mode (app token, a fake Socket Mode server) instead of signed HTTP. */
  socketMode?: boolean;
  /** Where requests are stored before their ack (default: in memory). */
  inbox?: SlackInbox;
  /** TANDEM_ALLOW_BOTS: other apps whose messages count. */
  allowBots?: readonly string[];
  /** TANDEM_APPROVERS (default APPROVERS); empty: anyone in the channel may approve. */
  approvers?: readonly string[];
  /** The Slack workspace of an earlier process (a restart): its threads stay, and stop() leaves it running. */
  fake?: SlackFakeServer;
  /** Configured secret values (the runtime's `config.secrets`): the agent's store and the bot redact them. */
  secrets?: readonly string[];
  /** TANDEM_POLICY: a policy file in force instead of the built-in policy of `approvers`. */
  policy?: PolicyGate;
  /** The agent's clock (a click "a day later" without a sweep); the real one by default. */
  clock?: () => Date;
}

export async function startSlackE2E(store: RunStore, options: SlackE2EOptions = {}): Promise<SlackE2E> {
  const logger = process.env.E2E_LOG ? createLogger({ level: process.env.E2E_LOG, secrets: [] }) : silentLogger();
  const fake = options.fake ?? (await new SlackFakeServer({ token: BOT_TOKEN }).start());
  fake.model.usergroups.set('SOPS', ['UGRP']);
  const socket = options.socketMode ? await new FakeSocketModeServer().start() : undefined;
  if (socket) fake.acceptSocketMode({ appToken: APP_TOKEN, url: () => socket.url() });
  const slackConfig = socket
    ? { botToken: BOT_TOKEN, appToken: APP_TOKEN, signingSecret: undefined, apiUrl: fake.apiUrl, mode: 'socket' as const }
    : { botToken: BOT_TOKEN, appToken: undefined, signingSecret: SIGNING_SECRET, apiUrl: fake.apiUrl, mode: 'http' as const };
  const config = { slack: { ...slackConfig, allowBots: options.allowBots ?? [] }, port: 0, secrets: [...(options.secrets ?? [])] };
  const client = createSlackClient(config, logger);
  const surface = new SlackSurface({
    client,
    logger,
    escalateTo: 'SOPS',
    boardIntervalMs: 100,
    onBoardPosted: async (runId, ts) => void (await store.updateRun(runId, { boardRef: ts })),
    // As the runtime wires it: where each wait was posted is stored, and boards read it back.
    waitMessages: { posted: (input) => agent.waitMessages.posted(input), links: (runId) => agent.waitMessages.links(runId) },
  });
  const tools = new ToolBench();
  const planner = new QueuedPlanner();
  // TANDEM_APPROVERS as the built-in policy, its user groups read from the fake Slack.
  const approvers = options.approvers ?? APPROVERS;
  const policy = options.policy ?? approversGate(approvers, { groups: createSlackGroupDirectory({ client, logger }) });
  const agent = createAgent({
    store,
    llm: planner,
    tools: tools.tools(),
    surface,
    policy,
    settings: {
      budgets: { maxSteps: 20, maxReplans: 2, runTimeoutS: 3600, stepTimeoutS: 60, maxTokens: 200_000 },
      confidenceThreshold: 0.6,
      autoRunReadOnly: false,
      secrets: [...(options.secrets ?? [])],
      concurrency: 2,
      retry: { retries: 0, baseDelayMs: 10 },
      // As the runtime passes TANDEM_APPROVERS: reminders ping them, and refusals name them.
      housekeeping: { approvers },
    },
    logger,
    ...(options.clock ? { clock: options.clock } : {}),
    owner: 'test-replica',
    runbooks: options.runbooks ?? {
      match: (task) => {
        const plan = runbookPlan(task);
        return plan ? { name: 'test-runbook', plan } : undefined;
      },
    },
  });
  const schedules = options.schedules?.({ agent, client });
  const slack = createSlackApp({
    config,
    agent,
    runs: store,
    logger,
    policy,
    ...(options.feedback ? { feedback: options.feedback } : {}),
    ...(options.inbox ? { inbox: options.inbox } : {}),
    ...(schedules ? { schedules } : {}),
    ...(options.runbooks ? { runbooks: options.runbooks } : {}),
  });
  const { port } = await slack.start(0);
  if (socket) await socket.waitForConnections(1);
  const driver = socket
    ? new SlackDriver({ signingSecret: SIGNING_SECRET, fake, transport: socket })
    : new SlackDriver({ eventsUrl: `http://127.0.0.1:${port}/slack/events`, signingSecret: SIGNING_SECRET, fake });
  const thread = (ts: string) => fake.model.thread('C1', ts).filter((m) => m.ts !== ts);
  return {
    fake,
    driver,
    slack,
    agent,
    tools,
    planner,
    client,
    socket,
    thread,
    async waitForMessage(ts, match, what) {
      await fake.waitUntil(() => thread(ts).some(match), 10_000, what);
      return thread(ts).find(match)!;
    },
    async stop() {
      await slack.stop();
      await agent.shutdown(1000);
      await agent.idle();
      await socket?.stop();
      if (!options.fake) await fake.stop();
    },
  };
}
