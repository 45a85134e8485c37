/**
 * TANDEM_REPOS: the repositories a plan may touch. A step's repositories are what its `repo` target
 * arg names, or what the tool says its args reach (a search's whole query). Checked on every plan and
 * edit (forward and rollback steps), again on the filled-in args before a step runs, and on every call a
 * tool makes through other tools.
 *
 * Values are judged as they are (decision 026). Only a plan's own args, not yet filled, may hold a
 * reference that stands for a value to come: such a target is judged once filled. A filled value, a
 * person's answer or a model's call is data: `{{steps.…}}` inside it is text, never "filled later".
 */
import type { Plan } from './plan/plan.ts';
import type { AnyTool, RepositoryReach } from '../ports/tool.ts';
import { findReferences } from './references.ts';
import { repositoryProblem } from './repository-name.ts';
import { targetArgNames } from './step-targets.ts';
import type { PlanProblem } from './plan/plan-problems.ts';
import { setting, type Text, words } from '../text/text.ts';

/** `owner/name` and `owner/*` entries, lower case; undefined when TANDEM_REPOS is unset (anything goes). */
export type RepositoryAllowList = readonly string[] | undefined;

/** The step-error code of a step refused at run time. */
export const REPO_NOT_ALLOWED = 'repo-not-allowed' as const;

type RepoTool = Pick<AnyTool, 'targets' | 'repositories'> | undefined;

/**
 * Which args are judged: `planned` args may still hold references (a target holding one waits for its
 * value); `filled` args are final (after filling, a person's words, a model's call), judged literally.
 */
export type ArgsStage = 'planned' | 'filled';

/**
 * GitHub treats owner and name case-insensitively; so does the list. `owner/*` stands for a whole account
 * (and is what an `org:` search reaches). A name GitHub would not accept (`acme/..`) is never allowed.
 */
export function isRepositoryAllowed(allowList: readonly string[], repository: string): boolean {
  const wanted = repository.toLowerCase();
  const slash = wanted.indexOf('/');
  const owner = wanted.slice(0, slash);
  // Only `owner/*` itself (what an `org:` search reaches) stands for every name; `acme/*/x` is no repository.
  if (repositoryProblem(wanted.slice(slash) === '/*' ? `${owner}/x` : wanted) !== null) return false;
  return allowList.includes(wanted) || allowList.includes(`${owner}/*`);
}

/** The arg that names a step's repository and what the args reach; undefined when the step reaches no repository. */
function repositoriesOf(tool: RepoTool, args: Record<string, unknown>, stage: ArgsStage): { at: string; reach: RepositoryReach | 'later' } | undefined {
  const targets = targetArgNames(tool, args);
  const waits = (names: readonly string[]) => stage === 'planned' && names.some((name) => findReferences(args[name]).references.length > 0);
  if (tool?.repositories) {
    const at = targets[0] ?? 'args';
    if (!waits(targets)) return { at, reach: tool.repositories(args) };
    return { at, reach: literalReach(tool.repositories.bind(tool), args, targets) };
  }
  if (!targets.includes('repo') || args.repo === undefined) return undefined;
  if (waits(['repo'])) return { at: 'repo', reach: 'later' };
  return { at: 'repo', reach: typeof args.repo === 'string' ? [args.repo] : { unreadable: 'a repository is written as owner/name text' } };
}

/**
 * A planned search with a reference standing alone between spaces (`repo:evil/x {{steps.s1.output.text}}`)
 * is judged on its own words now: a repository they name off the list is refused at once, whatever the
 * reference brings. Whether the whole is bounded, or readable, waits for the value (it may add the bound).
 */
function literalReach(
  reach: (args: Record<string, unknown>) => RepositoryReach,
  args: Record<string, unknown>,
  targets: readonly string[],
): RepositoryReach | 'later' {
  const literal: Record<string, unknown> = { ...args };
  for (const name of targets) {
    const value = args[name];
    if (typeof value !== 'string') return 'later';
    const { references } = findReferences(value);
    let text = value;
    for (const ref of references) {
      const alone = new RegExp(`(^| )${escapeRegExp(ref.raw)}(?= |$)`);
      if (!alone.test(text)) return 'later';
      text = text.replace(ref.raw, ' ');
    }
    literal[name] = text;
  }
  const found = reach(literal);
  return Array.isArray(found) ? found : 'later';
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Why these args may not be used under the allow-list, or null. A planned target holding a reference is judged once filled. */
export function repositoryRefusal(
  allowList: RepositoryAllowList,
  tool: RepoTool,
  args: Record<string, unknown>,
  stage: ArgsStage,
): { at: string; reason: Text } | null {
  if (!allowList) return null;
  const found = repositoriesOf(tool, args, stage);
  if (!found || found.reach === 'later') return null;
  const { at, reach } = found;
  const allowed = words`${setting('repos')} allows only ${allowList.join(', ')}`;
  if (reach === 'any')
    return {
      at,
      reason: words`it reaches every repository, but ${allowed}; name the repository (repo:owner/name) at the top level, outside parentheses and OR`,
    };
  if ('unreadable' in reach) return { at, reason: words`it could not be fully understood (${reach.unreadable}), and ${allowed}` };
  const misspelt = reach.find((repository) => !repository.endsWith('/*') && repositoryProblem(repository) !== null);
  if (misspelt !== undefined) return { at, reason: words`${JSON.stringify(misspelt)} is not a repository GitHub accepts: ${repositoryProblem(misspelt)!}` };
  const refused = reach.filter((repository) => !isRepositoryAllowed(allowList, repository));
  if (!refused.length) return null;
  return { at, reason: words`${refused.join(', ')} ${refused.length === 1 ? 'is' : 'are'} not on the allow-list: ${allowed}` };
}

/** Plan validation: one line per step (forward or rollback) on a repository off the list. */
export function checkPlanRepositories(plan: Plan, allowList: RepositoryAllowList, toolOf: (name: string) => RepoTool): PlanProblem[] {
  if (!allowList) return [];
  const problems: PlanProblem[] = [];
  for (const step of [...plan.steps, ...plan.rollback]) {
    const refusal = repositoryRefusal(allowList, toolOf(step.tool), step.args, 'planned');
    if (refusal) problems.push({ code: REPO_NOT_ALLOWED, at: `${step.id}.args.${refusal.at}`, message: refusal.reason });
  }
  return problems;
}
