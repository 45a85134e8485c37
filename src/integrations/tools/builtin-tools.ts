import type { AnyTool } from '../../agent/ports/tool.ts';
import { createAgentTaskTool } from './agent-task.ts';
import { createAskHumanTool } from './ask-human.ts';
import type { ToolDeps } from './deps.ts';
import { createGithubAddLabelsTool } from './github-add-labels.ts';
import { createGithubCommentTool } from './github-comment.ts';
import { createGithubCompareTool } from './github-compare.ts';
import { createGithubCreateIssueTool } from './github-create-issue.ts';
import { createGithubCreateReleaseTool } from './github-create-release.ts';
import { createGithubDispatchWorkflowTool } from './github-dispatch-workflow.ts';
import { createGithubGetPullTool } from './github-get-pull.ts';
import { createGithubGetRepoTool } from './github-get-repo.ts';
import { createGithubGetWorkflowRunTool } from './github-get-workflow-run.ts';
import { createGithubListPullsTool } from './github-list-pulls.ts';
import { createGithubListWorkflowRunsTool } from './github-list-workflow-runs.ts';
import { createGithubMergePullTool } from './github-merge-pull.ts';
import { createGithubSearchIssuesTool } from './github-search-issues.ts';
import { createHttpCheckTool } from './http-check.ts';
import { createLlmTaskTool } from './llm-task.ts';
import { createSlackNotifyTool } from './slack-notify.ts';
import { createWaitTool } from './wait.ts';

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
