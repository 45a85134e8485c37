/**
 * TANDEM_REPOS: the repositories a plan may touch. A step's repositories are what its `repo` target
 * arg names, or what the tool says its args reach (a search's `repo:` / `org:` qualifiers). Checked
 * on every plan and edit (forward and rollback steps), and again on the filled-in args of every step
 * and of every call a tool makes through other tools.
 *
 * Only a plan's own arguments may hold a reference still to be filled, and only those are left to be
 * judged later. A value that was filled (from an output, a person or a model) is data: `{{…}}` text
 * inside it is judged as the literal text it is, never taken for a reference.
 */
import type { Plan } from './plan.ts';
import { isAccountName, isRepositoryName } from './repository-name.ts';
import type { AnyTool } from './ports/tool.ts';
import { findReferences } from './references.ts';
import { targetArgNames } from './step-targets.ts';
import type { PlanProblem } from './plan-problems.ts';
import { setting, type Text, words } from './text.ts';

/** `owner/name` and `owner/*` entries, lower case; undefined when TANDEM_REPOS is unset (anything goes). */
export type RepositoryAllowList = readonly string[] | undefined;

/** The step-error code of a step refused at run time. */
export const REPO_NOT_ALLOWED = 'repo-not-allowed' as const;

type RepoTool = Pick<AnyTool, 'targets' | 'repositories'> | undefined;

/** Whether args are a plan's own (references may still stand in them) or the values a call gets. */
export type ArgsStage = 'planned' | 'filled';

/**
 * GitHub treats owner and name case-insensitively; so does the list. `owner/*` stands for a whole account
 * (as `owner/*` itself, from a search's `org:`). A name GitHub would refuse (`acme/..`) is never allowed.
 */
export function isRepositoryAllowed(allowList: readonly string[], repository: string): boolean {
  const wanted = repository.toLowerCase();
  if (!isRepositoryName(wanted) && !(wanted.endsWith('/*') && isAccountName(wanted.slice(0, -2)))) return false;
  const [owner = ''] = wanted.split('/');
  return allowList.includes(wanted) || allowList.includes(`${owner}/*`);
}

type Reach = readonly string[] | 'any' | { unreadable: string };

/** The arg that names a step's repository, the args it reaches, and whether a plan's reference still stands in them. */
function repositoriesOf(tool: RepoTool, args: Record<string, unknown>, stage: ArgsStage): { at: string; repositories: Reach; lateBound: boolean } | undefined {
  const targets = targetArgNames(tool, args);
  const stillToFill = (value: unknown) => stage === 'planned' && findReferences(value).references.length > 0;
  if (tool?.repositories) {
    const at = targets[0] ?? 'args';
    const lateBound = targets.some((name) => stillToFill(args[name]));
    return { at, repositories: lateBound ? [] : tool.repositories(args), lateBound };
  }
  if (!targets.includes('repo') || typeof args.repo !== 'string') return undefined;
  const lateBound = stillToFill(args.repo);
  return { at: 'repo', repositories: lateBound ? [] : [args.repo], lateBound };
}

/** Why these args may not be used under the allow-list, or null. A plan's repository still to be filled is not judged yet. */
export function repositoryRefusal(
  allowList: RepositoryAllowList,
  tool: RepoTool,
  args: Record<string, unknown>,
  stage: ArgsStage,
): { at: string; reason: Text } | null {
  if (!allowList) return null;
  const found = repositoriesOf(tool, args, stage);
  if (!found || found.lateBound) return null;
  const allowed = words`${setting('repos')} allows only ${allowList.join(', ')}`;
  if (found.repositories === 'any') return { at: found.at, reason: words`it reaches every repository, but ${allowed}; name the repository (repo:owner/name)` };
  if ('unreadable' in found.repositories)
    return { at: found.at, reason: words`what it reaches cannot be told (${found.repositories.unreadable}), and ${allowed}` };
  const refused = found.repositories.filter((repository) => !isRepositoryAllowed(allowList, repository));
  if (!refused.length) return null;
  return { at: found.at, reason: words`${refused.join(', ')} ${refused.length === 1 ? 'is' : 'are'} not on the allow-list: ${allowed}` };
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
