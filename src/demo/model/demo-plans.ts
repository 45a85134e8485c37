/**
 * The plans the demo model writes for the guided tasks: real plans over the real tools, each showing one
 * part of Tandem (Modify, four-eyes with a Confirm, an escalation with Replan or Abort, the parallel board).
 */
import type { PlannerAnswer } from '../../agent/planning/planner-schema.ts';
import { planAnswer } from './plan-answer.ts';

/** Where the demo's services answer `http_check`. */
export interface DemoEndpoints {
  healthUrl(service: 'api' | 'web'): string;
}

export interface ReleaseChoices {
  tag: string;
  draft: boolean;
  prerelease: boolean;
}

export const DEFAULT_RELEASE: ReleaseChoices = { tag: 'v1.4.0', draft: false, prerelease: false };

export function releasePlan(choices: ReleaseChoices): PlannerAnswer {
  const kind = choices.draft ? 'draft release' : choices.prerelease ? 'pre-release' : 'release';
  return planAnswer({
    goal: `Publish ${kind} ${choices.tag} of demo/api with notes on what changed since v1.3.0`,
    confidence: 0.9,
    steps: [
      { id: 's1', title: 'Compare v1.3.0...main in demo/api', tool: 'github_compare', args: { repo: 'demo/api', base: 'v1.3.0', head: 'main' } },
      {
        id: 's2',
        title: `Write release notes for ${choices.tag}`,
        tool: 'llm_task',
        args: {
          instruction: `Write short release notes for ${choices.tag} of demo/api from these commits`,
          inputs: { commits: '{{steps.s1.output.commits}}' },
        },
        dependsOn: ['s1'],
      },
      {
        id: 's3',
        title: `Create ${kind} ${choices.tag}`,
        tool: 'github_create_release',
        args: {
          repo: 'demo/api',
          tag: choices.tag,
          name: choices.tag,
          body: '{{steps.s2.output.text}}',
          target: 'main',
          draft: choices.draft,
          prerelease: choices.prerelease,
        },
        dependsOn: ['s2'],
      },
    ],
  });
}

/** "Merge the PR I name": the number is asked at run time, so the merge waits for a Confirm of the filled-in target. */
export function mergePlan(named: number | undefined): PlannerAnswer {
  if (named !== undefined) {
    return planAnswer({
      goal: `Merge pull request #${named} of demo/api once it is ready`,
      confidence: 0.85,
      steps: [
        {
          id: 's1',
          title: `Check #${named} is ready to merge`,
          tool: 'github_get_pull',
          args: { repo: 'demo/api', number: named },
          expect: 'The pull request is open, mergeable and its checks pass',
        },
        {
          id: 's2',
          title: `Squash-merge #${named}`,
          tool: 'github_merge_pull',
          args: { repo: 'demo/api', number: named, method: 'squash' },
          dependsOn: ['s1'],
        },
      ],
    });
  }
  return planAnswer({
    goal: 'Merge the pull request of demo/api that you name, once it is ready',
    confidence: 0.85,
    steps: [
      {
        id: 's1',
        title: 'Ask which pull request to merge',
        tool: 'ask_human',
        args: { question: 'Which pull request of demo/api should I merge? Answer with its number (try 7 or 8; 9 is a draft that is not ready).' },
      },
      {
        id: 's2',
        title: 'Check the named pull request is ready',
        tool: 'github_get_pull',
        args: { repo: 'demo/api', number: '{{steps.s1.output.answer}}' },
        dependsOn: ['s1'],
        expect: 'The pull request is open, mergeable and its checks pass',
      },
      {
        id: 's3',
        title: 'Squash-merge the named pull request',
        tool: 'github_merge_pull',
        args: { repo: 'demo/api', number: '{{steps.s1.output.answer}}', method: 'squash' },
        dependsOn: ['s2'],
      },
    ],
  });
}

/** The deploy of demo/web fails in the sandbox: its escalation offers Retry, Skip, Replan and Abort (which rolls back). */
export function deployPlan(endpoints: DemoEndpoints): PlannerAnswer {
  return planAnswer({
    goal: 'Deploy main of demo/web and check it is healthy',
    confidence: 0.85,
    steps: [
      {
        id: 's1',
        title: 'Look at the last deploys of demo/web',
        tool: 'github_list_workflow_runs',
        args: { repo: 'demo/web', workflow: 'deploy.yml', limit: 3 },
      },
      {
        id: 's2',
        title: 'Open a tracking issue for the deploy',
        tool: 'github_create_issue',
        args: { repo: 'demo/web', title: 'Deploy main of demo/web', body: 'Tracking the deploy of main, asked for in the demo workspace.', labels: ['deploy'] },
      },
      {
        id: 's3',
        title: 'Run the deploy workflow on main',
        tool: 'github_dispatch_workflow',
        args: { repo: 'demo/web', workflow: 'deploy.yml', ref: 'main' },
        dependsOn: ['s1', 's2'],
      },
      {
        id: 's4',
        title: 'Check demo/web answers after the deploy',
        tool: 'http_check',
        args: { url: endpoints.healthUrl('web'), expectStatus: 200 },
        dependsOn: ['s3'],
      },
    ],
    rollback: [
      {
        id: 'r1',
        title: 'Note on the tracking issue that the deploy was rolled back',
        tool: 'github_comment',
        args: { repo: 'demo/web', number: '{{steps.s2.output.number}}', body: 'The deploy was aborted and rolled back.' },
        undoes: 's2',
      },
      {
        id: 'r2',
        title: 'Run the rollback workflow',
        tool: 'github_dispatch_workflow',
        args: { repo: 'demo/web', workflow: 'rollback.yml', ref: 'main' },
        undoes: 's3',
      },
    ],
  });
}

/** After the failed deploy, Replan: roll back with the workflow that works and say so on the tracking issue. */
export function deployReplan(endpoints: DemoEndpoints): PlannerAnswer {
  return planAnswer({
    goal: 'Roll demo/web back to its last good version after the failed deploy',
    confidence: 0.8,
    // The task was a deploy; this plan undoes it instead, and says so where the approver reads it.
    notCovered: [{ part: 'deploy main of demo/web', reason: 'its deploy workflow fails; fix the workflow, then ask again' }],
    steps: [
      {
        id: 's5',
        title: 'Run the rollback workflow on main',
        tool: 'github_dispatch_workflow',
        args: { repo: 'demo/web', workflow: 'rollback.yml', ref: 'main' },
      },
      {
        id: 's6',
        title: 'Check demo/web answers after the rollback',
        tool: 'http_check',
        args: { url: endpoints.healthUrl('web'), expectStatus: 200 },
        dependsOn: ['s5'],
      },
      {
        id: 's7',
        title: 'Explain on the tracking issue',
        tool: 'github_comment',
        args: { repo: 'demo/web', number: '{{steps.s2.output.number}}', body: 'The deploy of main failed; demo/web was rolled back to its last good version.' },
        dependsOn: ['s5'],
      },
    ],
  });
}

/** Independent reads (and one CI run) side by side: the board shows them running at once, then the report. */
export function statusReportPlan(endpoints: DemoEndpoints): PlannerAnswer {
  return planAnswer({
    goal: 'Report on the state of demo/api and demo/web',
    confidence: 0.9,
    steps: [
      { id: 's1', title: 'Open pull requests of demo/api', tool: 'github_list_pulls', args: { repo: 'demo/api', state: 'open' } },
      { id: 's2', title: 'Recent workflow runs of demo/web', tool: 'github_list_workflow_runs', args: { repo: 'demo/web', limit: 5 } },
      { id: 's3', title: 'Health of demo/api', tool: 'http_check', args: { url: endpoints.healthUrl('api') } },
      { id: 's4', title: 'Health of demo/web', tool: 'http_check', args: { url: endpoints.healthUrl('web') } },
      { id: 's5', title: 'Run CI on main of demo/api', tool: 'github_dispatch_workflow', args: { repo: 'demo/api', workflow: 'ci.yml', ref: 'main' } },
      {
        id: 's6',
        title: 'Find the open bugs',
        tool: 'agent_task',
        args: { instruction: 'Find the open bugs in demo/api and demo/web', tools: ['github_search_issues'], maxCalls: 3 },
      },
      {
        id: 's7',
        title: 'Write the report',
        tool: 'llm_task',
        args: {
          instruction: 'Write a short status report of demo/api and demo/web',
          inputs: {
            pulls: '{{steps.s1.output.count}}',
            apiUp: '{{steps.s3.output.ok}}',
            webUp: '{{steps.s4.output.ok}}',
            ci: '{{steps.s5.output.conclusion}}',
            bugs: '{{steps.s6.output.text}}',
          },
        },
        dependsOn: ['s1', 's2', 's3', 's4', 's5', 's6'],
      },
    ],
  });
}
