/**
 * The demo's guided tasks: what the workspace offers as suggestions, and how the demo model recognises
 * a task as one of them. Each shows one part of Tandem end to end.
 */
export type DemoTaskKind = 'release' | 'merge' | 'deploy' | 'report';

export interface GuidedTask {
  /** The suggestion's button text. */
  label: string;
  /** What clicking it puts in the composer. */
  text: string;
  /** What to try with it, shown beside the suggestion. */
  hint: string;
}

export const GUIDED_TASKS: readonly GuidedTask[] = [
  {
    label: 'Cut a release of demo/api',
    text: '@tandem cut a release of demo/api',
    hint: 'Plan and Modify: ask the planner to "make it a draft", Approve, then Save as runbook from the summary.',
  },
  {
    label: 'Merge the PR I name',
    text: '@tandem merge the PR I name in demo/api',
    hint: 'Four-eyes: a merge needs an approver other than you, so switch to Alex to Approve; answer the question with 7 (or 9, a draft: its check fails and escalates); Confirm the filled-in PR as Alex. Try answering as Casey (bystander) too.',
  },
  {
    label: 'Deploy demo/web (its deploy fails)',
    text: '@tandem deploy demo/web',
    hint: 'An escalation: the deploy workflow fails. Retry fails again, Skip goes on without it, Replan rolls back with a new plan, Abort runs the rollback steps.',
  },
  {
    label: 'Status report (parallel board)',
    text: '@tandem give me a status report on demo/api and demo/web',
    hint: 'The board runs independent steps at the same time: reads, health checks, a CI run and a small agent.',
  },
  {
    label: 'Schedule it',
    text: '@tandem every weekday at 09:00 give me a status report on demo/api and demo/web',
    hint: 'A schedule: the same task runs by itself; /tandem schedules lists it with a Remove button.',
  },
  { label: '/tandem status', text: '/tandem status', hint: 'The runs in progress in this channel.' },
];

/** Which guided task a request names, if any; `pull` is a pull request number the request already gives. */
export function recogniseTask(text: string): { kind: DemoTaskKind; pull?: number } | undefined {
  const task = text.toLowerCase();
  if (/\bdeploy/.test(task) && /demo\/web|\bweb\b/.test(task)) return { kind: 'deploy' };
  if (/\bmerge\b/.test(task)) {
    const number = /(?:#|\b(?:pr|pull request|pull)\s*#?)(\d{1,6})\b/.exec(task)?.[1];
    return number ? { kind: 'merge', pull: Number(number) } : { kind: 'merge' };
  }
  if (/\brelease\b/.test(task)) return { kind: 'release' };
  if (/\b(status|report|health|check on|survey)\b/.test(task)) return { kind: 'report' };
  return undefined;
}

export const ONLY_DEMO_TASKS =
  "I am the demo's scripted model, so I only know the guided tasks: cut a release of demo/api, merge the PR you name in demo/api, deploy demo/web, or a status report on demo/api and demo/web. Which one shall I plan? (Configure a real model to plan anything else.)";

export const ONLY_RELEASE_CHANGES =
  "I am the demo's scripted model, so the only change I can make to a plan is to the release of demo/api: another tag (such as v1.5.0), a draft, or a pre-release. Answer with the guided task you want planned again, or configure a real model to change plans freely.";
