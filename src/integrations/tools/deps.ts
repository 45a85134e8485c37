import type { LlmClient } from '../../agent/ports/llm.ts';
import type { Octokit } from '../github/client.ts';
import type { PollTiming } from '../github/workflow-poll.ts';
import type { SlackPoster } from './thread/slack-poster.ts';

/** Everything the built-in tools reach the world through. A missing one makes its tools answer with a clear error. */
export interface ToolDeps {
  github: Octokit | undefined;
  slack: SlackPoster | undefined;
  llm: LlmClient | undefined;
  /** Hosts http_check may reach (exact match, lower case). */
  httpAllow: readonly string[];
  poll?: Partial<PollTiming>;
}
