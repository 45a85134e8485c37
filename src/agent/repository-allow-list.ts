/**
 * TANDEM_REPOS: the repositories a plan may touch. A step's repositories are what its `repo` target
 * arg names, or what the tool says its args reach (a search's `repo:` / `org:` qualifiers). Checked
 * on every plan and edit (forward and rollback steps), and again on the filled-in args of a step
 * whose repository was a reference, and of every call a tool makes through other tools.
 */
import type { Plan } from './plan.ts';
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

/** GitHub treats owner and name case-insensitively; so does the list. `owner/*` stands for a whole account. */
export function isRepositoryAllowed(allowList: readonly string[], repository: string): boolean {
  const wanted = repository.toLowerCase();
  const [owner = ''] = wanted.split('/');
  return allowList.includes(wanted) || allowList.includes(`${owner}/*`);
}

/** The arg that names a step's repository, the args it reaches, and whether a reference still stands in them. */
function repositoriesOf(
  tool: RepoTool,
  args: Record<string, unknown>,
): { at: string; repositories: readonly string[] | 'any'; lateBound: boolean } | undefined {
  const targets = targetArgNames(tool, args);
  if (tool?.repositories) {
    const at = targets[0] ?? 'args';
    const lateBound = targets.some((name) => findReferences(args[name]).references.length > 0);
    return { at, repositories: lateBound ? [] : tool.repositories(args), lateBound };
  }
  if (!targets.includes('repo') || typeof args.repo !== 'string') return undefined;
  const lateBound = findReferences(args.repo).references.length > 0;
  return { at: 'repo', repositories: lateBound ? [] : [args.repo], lateBound };
}

/** Why these args may not be used under the allow-list, or null. A late-bound repository is not judged yet. */
export function repositoryRefusal(allowList: RepositoryAllowList, tool: RepoTool, args: Record<string, unknown>): { at: string; reason: Text } | null {
  if (!allowList) return null;
  const found = repositoriesOf(tool, args);
  if (!found || found.lateBound) return null;
  const allowed = words`${setting('repos')} allows only ${allowList.join(', ')}`;
  if (found.repositories === 'any') return { at: found.at, reason: words`it reaches every repository, but ${allowed}; name the repository (repo:owner/name)` };
  const refused = found.repositories.filter((repository) => !isRepositoryAllowed(allowList, repository));
  if (!refused.length) return null;
  return { at: found.at, reason: words`${refused.join(', ')} ${refused.length === 1 ? 'is' : 'are'} not on the allow-list: ${allowed}` };
}

/** Plan validation: one line per step (forward or rollback) on a repository off the list. */
export function checkPlanRepositories(plan: Plan, allowList: RepositoryAllowList, toolOf: (name: string) => RepoTool): PlanProblem[] {
  if (!allowList) return [];
  const problems: PlanProblem[] = [];
  for (const step of [...plan.steps, ...plan.rollback]) {
    const refusal = repositoryRefusal(allowList, toolOf(step.tool), step.args);
    if (refusal) problems.push({ code: REPO_NOT_ALLOWED, at: `${step.id}.args.${refusal.at}`, message: refusal.reason });
  }
  return problems;
}
