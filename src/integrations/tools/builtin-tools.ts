import type { AnyTool } from '../../agent/ports/tool.ts';
import { createAgentTaskTool } from './model/agent-task.ts';
import { createAskHumanTool } from './thread/ask-human.ts';
import type { ToolDeps } from './deps.ts';
import { createGithubAddLabelsTool } from './github/github-add-labels.ts';
import { createGithubCommentTool } from './github/github-comment.ts';
import { createGithubCompareTool } from './github/github-compare.ts';
import { createGithubCreateIssueTool } from './github/github-create-issue.ts';
import { createGithubCreateReleaseTool } from './github/github-create-release.ts';
import { createGithubDispatchWorkflowTool } from './github/github-dispatch-workflow.ts';
import { createGithubGetPullTool } from './github/github-get-pull.ts';
import { createGithubGetRepoTool } from './github/github-get-repo.ts';
import { createGithubGetWorkflowRunTool } from './github/github-get-workflow-run.ts';
import { createGithubListPullsTool } from './github/github-list-pulls.ts';
import { createGithubListWorkflowRunsTool } from './github/github-list-workflow-runs.ts';
import { createGithubMergePullTool } from './github/github-merge-pull.ts';
import { createGithubSearchIssuesTool } from './github/github-search-issues.ts';
import { createHttpCheckTool } from './ops/http-check.ts';
import { createLlmTaskTool } from './model/llm-task.ts';
import { createSlackNotifyTool } from './thread/slack-notify.ts';
import { createWaitTool } from './ops/wait.ts';

/** Every built-in tool (README: Tools). Tools whose dependency is missing are still listed and say so when run. */
export function createBuiltinTools(deps: ToolDeps): AnyTool[] {
  const { github } = deps;
  return [
    createGithubGetRepoTool(github),
    createGithubListPullsTool(github),
    createGithubGetPullTool(github),
    createGithubListWorkflowRunsTool(github),
    createGithubGetWorkflowRunTool(github),
    createGithubCompareTool(github),
    createGithubSearchIssuesTool(github),
    createGithubCreateIssueTool(github),
    createGithubCommentTool(github),
    createGithubAddLabelsTool(github),
    createGithubCreateReleaseTool(github),
    createGithubDispatchWorkflowTool(github, deps.poll),
    createGithubMergePullTool(github),
    createHttpCheckTool(deps.httpAllow),
    createSlackNotifyTool(deps.slack),
    createWaitTool(),
    createLlmTaskTool(deps.llm),
    createAgentTaskTool(deps.llm),
    createAskHumanTool(),
  ];
}
