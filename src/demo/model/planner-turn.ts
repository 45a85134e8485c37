/**
 * The demo model as the planner: it reads the prompt Tandem's planner wrote (the task, a person's
 * revision, a replan, answers to its questions) and answers with the guided task's plan.
 */
import type { PlannerAnswer } from '../../agent/planning/planner-schema.ts';
import { ONLY_DEMO_TASKS, ONLY_RELEASE_CHANGES, recogniseTask } from '../guided-tasks.ts';
import { DEFAULT_RELEASE, deployPlan, deployReplan, mergePlan, releasePlan, statusReportPlan, type DemoEndpoints, type ReleaseChoices } from './demo-plans.ts';
import { planAnswer, questionAnswer } from './plan-answer.ts';

interface PlannerPrompt {
  task: string;
  revision?: { instruction: string; currentPlan: unknown };
  replan: boolean;
  answers?: string;
}

/** The parts of planner-prompt.ts's user message the demo model needs; it is only ever shown that prompt. */
export function readPlannerPrompt(prompt: string): PlannerPrompt {
  const task = /^Task from [^\n]*:\n([\s\S]*?)\n\nTool catalogue/.exec(prompt)?.[1] ?? '';
  const instruction = /asks for this change to the current plan:\n([\s\S]*?)\nReturn the whole revised plan\./.exec(prompt)?.[1];
  const current = /\n\nCurrent plan:\n([^\n]*)/.exec(prompt)?.[1];
  const answered = /The requester answered earlier questions:\n([\s\S]*?)(?:\n\n[A-Z]|$)/.exec(prompt)?.[1];
  // Only what people answered: the questions beside them (the demo's own list of guided tasks) name every task.
  const answers = answered === undefined ? undefined : answerValues(answered).join('\n');
  return {
    task,
    replan: prompt.includes('\n\nThis is a replan.'),
    ...(instruction !== undefined ? { revision: { instruction, currentPlan: parseJson(current) } } : {}),
    ...(answers !== undefined ? { answers } : {}),
  };
}

/** The `answer` fields of the answers' data blocks (JSON objects of question and answer). */
function answerValues(block: string): string[] {
  return [...block.matchAll(/"answer":\s*("(?:[^"\\]|\\.)*")/g)].map((match) => String(parseJson(match[1])));
}

function parseJson(text: string | undefined): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

export function plannerTurn(prompt: string, endpoints: DemoEndpoints): PlannerAnswer {
  const read = readPlannerPrompt(prompt);
  const recognised = recogniseTask(read.task) ?? (read.answers ? recogniseTask(read.answers) : undefined);
  if (!recognised) return questionAnswer(ONLY_DEMO_TASKS);
  if (read.revision) return revised(recognised.kind, read.revision);
  if (read.replan) return replanned(recognised.kind, endpoints);
  switch (recognised.kind) {
    case 'release':
      return releasePlan(DEFAULT_RELEASE);
    case 'merge':
      return mergePlan(recognised.pull);
    case 'deploy':
      return deployPlan(endpoints);
    case 'report':
      return statusReportPlan(endpoints);
  }
}

/**
 * Modify's "ask the planner to change…": the release understands a tag, a draft and a pre-release. Any
 * other change (or any change to another plan) gets the plain answer that the demo model cannot make it,
 * never a plan that quietly ignores what the person asked.
 */
function revised(kind: string, revision: { instruction: string; currentPlan: unknown }): PlannerAnswer {
  const current = asPlan(revision.currentPlan);
  const instruction = revision.instruction.toLowerCase();
  const tag = /\bv?\d+\.\d+\.\d+\b/.exec(instruction)?.[0].replace(/^(?!v)/, 'v');
  const unpublished = /\bnot (a )?draft\b|\bpublish(ed)? it\b/.test(instruction);
  const draft = /\bdraft\b/.test(instruction);
  const prerelease = /\bpre-?release\b/.test(instruction);
  if (kind !== 'release' || !current || !(tag || unpublished || draft || prerelease)) return questionAnswer(ONLY_RELEASE_CHANGES);
  const release = current.steps.find((step) => step.tool === 'github_create_release');
  const was = release ? (JSON.parse(release.argsJson) as Partial<ReleaseChoices>) : {};
  return releasePlan({
    tag: tag ?? was.tag ?? DEFAULT_RELEASE.tag,
    draft: unpublished ? false : draft || was.draft === true,
    prerelease: prerelease || was.prerelease === true,
  });
}

/** The deploy's Replan rolls back; a merge asks again for the pull request; the others have nothing better to offer. */
function replanned(kind: string, endpoints: DemoEndpoints): PlannerAnswer {
  if (kind === 'deploy') return deployReplan(endpoints);
  if (kind === 'merge') {
    const again = mergePlan(undefined);
    const renumber = (text: string) => text.replace(/\bs([123])\b/g, (_m, n: string) => `s${Number(n) + 3}`);
    return JSON.parse(renumber(JSON.stringify(again))) as PlannerAnswer;
  }
  return questionAnswer('The demo model has no other plan for this task. Retry, Skip or Abort instead, or start one of the guided tasks again.');
}

/** The current plan (the artifact, args as objects) back in the planner's answer shape. */
function asPlan(value: unknown): PlannerAnswer | undefined {
  const plan = value as { goal?: unknown; confidence?: unknown; steps?: unknown; rollback?: unknown } | undefined;
  if (!plan || typeof plan.goal !== 'string' || !Array.isArray(plan.steps)) return undefined;
  type Step = { id: string; title: string; tool: string; args: Record<string, unknown>; dependsOn?: string[]; expect?: string; undoes?: string };
  return planAnswer({
    goal: plan.goal,
    confidence: typeof plan.confidence === 'number' ? plan.confidence : 0.8,
    steps: (plan.steps as Step[]).map((step) => ({ ...step })),
    rollback: Array.isArray(plan.rollback) ? (plan.rollback as Step[]).map((step) => ({ ...step })) : [],
  });
}
