import type { AgentApi, StartRunInput } from '../../src/agent/ports/agent-api.ts';
import type { PlanVersionRecord, RunRecord } from '../../src/agent/ports/run-store.ts';
import type { QuestionRecord } from '../../src/agent/ports/human-input.ts';
import { createSlackApp, type SlackApp } from '../../src/bot/create-slack-app.ts';
import { createMemoryInbox, type RunQueries, type SlackInbox } from '../../src/bot/ports.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { SlackDriver, SlackFakeServer } from '../../src/workspace/slack-fake/index.ts';
import { makeRun } from './slack-fixtures.ts';
import { approversGate } from '../helpers/policy-gate.ts';

export const SIGNING_SECRET = 'test-signing-secret';
export const BOT_TOKEN = 'xoxb-test-token';

type Call = { method: keyof AgentApi; input: unknown };

/**
 * A fake of the AgentApi port: records every call and answers what the test set in `answers`.
 * It stands in for the agent core so the Slack behaviour is tested on its own.
 */
export class RecordingAgent implements AgentApi {
  readonly calls: Call[] = [];
  answers: Partial<{ [K in keyof AgentApi]: AgentApi[K] }> = {};

  callsOf(method: keyof AgentApi): unknown[] {
    return this.calls.filter((c) => c.method === method).map((c) => c.input);
  }

  private record<K extends keyof AgentApi>(method: K, input: unknown): void {
    this.calls.push({ method, input });
  }

  async startRun(input: StartRunInput): Promise<RunRecord> {
    this.record('startRun', input);
    if (this.answers.startRun) return this.answers.startRun(input);
    return makeRun({ task: input.task, requester: input.requester, conversation: input.conversation, status: 'planning' });
  }
  async decide(input: Parameters<AgentApi['decide']>[0]) {
    this.record('decide', input);
    return this.answers.decide ? this.answers.decide(input) : { ok: true as const, value: undefined };
  }
  async modifyRefusal(input: Parameters<AgentApi['modifyRefusal']>[0]) {
    this.record('modifyRefusal', input);
    return this.answers.modifyRefusal ? this.answers.modifyRefusal(input) : undefined;
  }
  async checkEdit(input: Parameters<AgentApi['checkEdit']>[0]) {
    this.record('checkEdit', input);
    return this.answers.checkEdit ? this.answers.checkEdit(input) : { ok: true as const, value: undefined };
  }
  async editPlan(input: Parameters<AgentApi['editPlan']>[0]) {
    this.record('editPlan', input);
    if (this.answers.editPlan) return this.answers.editPlan(input);
    return { ok: false as const, error: [{ code: 'not-waiting' as const, message: 'not scripted' }] };
  }
  async revisePlan(input: Parameters<AgentApi['revisePlan']>[0]) {
    this.record('revisePlan', input);
    return this.answers.revisePlan ? this.answers.revisePlan(input) : { ok: true as const, value: undefined };
  }
  async resolveEscalation(input: Parameters<AgentApi['resolveEscalation']>[0]) {
    this.record('resolveEscalation', input);
    return this.answers.resolveEscalation ? this.answers.resolveEscalation(input) : { ok: true as const, value: undefined };
  }
  async reassign(input: Parameters<AgentApi['reassign']>[0]) {
    this.record('reassign', input);
    if (this.answers.reassign) return this.answers.reassign(input);
    return { ok: false as const, error: { code: 'wait-missing' as const, message: 'not scripted' } };
  }
  async waitsFor(input: Parameters<AgentApi['waitsFor']>[0]) {
    this.record('waitsFor', input);
    return this.answers.waitsFor ? this.answers.waitsFor(input) : [];
  }
  async followUp(input: Parameters<AgentApi['followUp']>[0]) {
    this.record('followUp', input);
    return this.answers.followUp ? this.answers.followUp(input) : 'no-run';
  }
  async cancel(input: Parameters<AgentApi['cancel']>[0]) {
    this.record('cancel', input);
    return this.answers.cancel ? this.answers.cancel(input) : { ok: true as const, value: undefined };
  }
  async confirmTarget(input: Parameters<AgentApi['confirmTarget']>[0]) {
    this.record('confirmTarget', input);
    return this.answers.confirmTarget ? this.answers.confirmTarget(input) : { ok: true as const, value: undefined };
  }
  async resume() {
    this.record('resume', undefined);
  }
  async shutdown(deadlineMs: number) {
    this.record('shutdown', deadlineMs);
  }
}

/** RunQueries over arrays the test fills. */
export class MemoryRunQueries implements RunQueries {
  runs: RunRecord[] = [];
  plans: PlanVersionRecord[] = [];
  questions: QuestionRecord[] = [];
  async getRun(runId: string) {
    return this.runs.find((run) => run.id === runId);
  }
  async listRuns(filter: Parameters<RunQueries['listRuns']>[0]) {
    return this.runs
      .filter(
        (run) =>
          (!filter.requester || run.requester === filter.requester) &&
          (!filter.channel || run.conversation.channel === filter.channel) &&
          (!filter.statuses || filter.statuses.includes(run.status)),
      )
      .slice(0, filter.limit);
  }
  async getPlanVersion(runId: string, version: number) {
    return this.plans.find((p) => p.runId === runId && p.version === version);
  }
  async listQuestions(runId: string) {
    return this.questions.filter((q) => q.runId === runId);
  }
}

export const silentLogger = () => createLogger({ level: 'silent', secrets: [] });

export interface SlackHarness {
  fake: SlackFakeServer;
  driver: SlackDriver;
  slack: SlackApp;
  agent: RecordingAgent;
  runs: MemoryRunQueries;
  eventsUrl: string;
  baseUrl: string;
  stop(): Promise<void>;
}

/** Real Bolt in HTTP mode on 127.0.0.1, talking to the fake Slack Web API; the agent is a recording fake. */
export async function startSlackHarness(options: { inbox?: SlackInbox } = {}): Promise<SlackHarness> {
  const fake = await new SlackFakeServer({ token: BOT_TOKEN }).start();
  const agent = new RecordingAgent();
  const runs = new MemoryRunQueries();
  const slack = createSlackApp({
    config: { slack: { botToken: BOT_TOKEN, appToken: undefined, signingSecret: SIGNING_SECRET, apiUrl: fake.apiUrl, mode: 'http' }, port: 0 },
    agent,
    inbox: options.inbox ?? createMemoryInbox(),
    runs,
    logger: silentLogger(),
    policy: approversGate(),
  });
  const { port } = await slack.start(0);
  const baseUrl = `http://127.0.0.1:${port}`;
  const eventsUrl = `${baseUrl}/slack/events`;
  const driver = new SlackDriver({ eventsUrl, signingSecret: SIGNING_SECRET, fake });
  return {
    fake,
    driver,
    slack,
    agent,
    runs,
    eventsUrl,
    baseUrl,
    async stop() {
      await slack.stop();
      await fake.stop();
    },
  };
}

/** Polls until `check` passes; for effects that happen after Slack's request was acknowledged. */
export async function eventually(check: () => void | Promise<void>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
