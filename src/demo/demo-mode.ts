/**
 * What `tandem start --demo` puts in place of the outside world: the GitHub sandbox and the scripted
 * model, and what the workspace shows (people, guided tasks, the demo banner).
 */
import type { LlmClient } from '../agent/ports/llm.ts';
import { DEMO_APPROVERS, DEMO_ESCALATE_TO, DEMO_PEOPLE, type DemoPerson } from './demo-people.ts';
import { startGithubSandbox, type GithubSandbox } from './github/github-sandbox.ts';
import { GUIDED_TASKS, type GuidedTask } from './guided-tasks.ts';
import { createScriptedModel } from './model/scripted-model.ts';

export interface DemoMode {
  github: GithubSandbox;
  llm: LlmClient;
  people: readonly DemoPerson[];
  approvers: readonly string[];
  escalateTo: string;
  guidedTasks: readonly GuidedTask[];
  /** The line every view of the demo workspace shows. */
  banner: string;
  /** The line every message the bot posts in the demo ends with. */
  messageNote: string;
  close(): Promise<void>;
}

export const DEMO_BANNER =
  'DEMO — a scripted model and a GitHub sandbox (demo/api, demo/web) on this machine. Nothing leaves it; nothing here is real GitHub or Slack.';

export const DEMO_MESSAGE_NOTE = 'Demo — a scripted model and a GitHub sandbox; nothing leaves this machine.';

export async function startDemoMode(options: { runMs?: number } = {}): Promise<DemoMode> {
  const github = await startGithubSandbox(options);
  return {
    github,
    llm: createScriptedModel({ healthUrl: (service) => github.healthUrl(service) }),
    people: DEMO_PEOPLE,
    approvers: DEMO_APPROVERS,
    escalateTo: DEMO_ESCALATE_TO,
    guidedTasks: GUIDED_TASKS,
    banner: DEMO_BANNER,
    messageNote: DEMO_MESSAGE_NOTE,
    close: () => github.close(),
  };
}
