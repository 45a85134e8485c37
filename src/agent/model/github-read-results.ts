/**
 * What a GitHub read found, in the words a person asks it: a repository's pull requests, a pull request's
 * mergeability and checks, a workflow run's state, the newest runs with a link to the rest, a comparison's ahead/behind counts and
 * newest commits, a repository's facts. Pure: a tool's stored output and args in, a result out.
 */
import { LIST_ITEMS, linkLabel, linkTo, num, origin, str, type StepResult } from './result-parts.ts';

/** A planned argument as written, unless it is a reference filled in at run time (then the output says it). */
const plain = (value: unknown): string | undefined => {
  const text = str(value);
  return text && !text.includes('{{') ? text : undefined;
};

/**
 * "12 open pull requests in acme/api", or, when the limit cut the list ("more": GitHub had others), "The 20
 * newest open pull requests in acme/api" and a link to all of them on GitHub with the same filters: the count
 * listed is then not how many there are.
 */
export function pullList(out: Record<string, unknown>): StepResult {
  const pulls = Array.isArray(out.pulls) ? out.pulls.filter((pull): pull is Record<string, unknown> => typeof pull === 'object' && pull !== null) : [];
  const items = pulls.flatMap((pull) =>
    str(pull.url) ? [{ label: `${linkLabel(str(pull.url)!)} ${str(pull.title) ?? ''}`.trim(), url: str(pull.url)! }] : [],
  );
  const repo = str(out.repo);
  const count = num(out.count) ?? items.length;
  const state = str(out.state) ?? 'open';
  const what = `${state === 'all' ? '' : `${state} `}pull ${count === 1 ? 'request' : 'requests'}${repo ? ` in ${repo}` : ''}${str(out.base) ? ` into ${str(out.base)}` : ''}`;
  const first = items[0]?.url;
  const filters = ['is:pr', ...(state === 'all' ? [] : [`is:${state}`]), ...(str(out.base) ? [`base:${str(out.base)}`] : [])].join(' ');
  const all = first && repo ? `${origin(first)}/${repo}/pulls?q=${encodeURIComponent(filters)}` : null;
  if (out.more === true)
    return {
      kind: 'answer',
      text: `The ${count === 1 ? '' : `${count} `}newest ${what}`,
      link: all ? { label: 'all of them on GitHub', url: all } : null,
      items: items.slice(0, LIST_ITEMS),
    };
  return { kind: 'answer', text: `${count} ${what}`, link: null, items: items.slice(0, LIST_ITEMS), total: count, rest: count > LIST_ITEMS ? all : null };
}

/** "can be merged; checks passed (3)", "cannot be merged (dirty); checks failed: ci/test": what a person asks a pull request before merging it. */
export function pullReadiness(out: Record<string, unknown>): string {
  const state = str(out.mergeableState);
  const mergeable =
    out.mergeable === true
      ? `can be merged${state && state !== 'clean' ? ` (${state})` : ''}`
      : out.mergeable === false
        ? `cannot be merged${state ? ` (${state})` : ''}`
        : 'GitHub is still working out whether it can be merged';
  const checks = (typeof out.checks === 'object' && out.checks !== null ? out.checks : {}) as Record<string, unknown>;
  const names = (raw: unknown) => (Array.isArray(raw) ? raw.filter((name): name is string => typeof name === 'string') : []);
  const total = num(checks.total);
  const counted = total !== undefined ? ` (${total})` : '';
  const said: Record<string, string> = {
    success: `checks passed${counted}`,
    failure: `checks failed: ${listedNames(names(checks.failed))}`,
    pending: `checks still running: ${listedNames(names(checks.pending))}`,
    none: 'no checks',
  };
  const verdict = out.readyToMerge === true ? ' — ready to merge' : '';
  return `${mergeable}; ${said[str(checks.state) ?? ''] ?? 'checks unknown'}${verdict}`;
}

const listedNames = (names: readonly string[]) =>
  names.length === 0 ? 'unnamed' : `${names.slice(0, 5).join(', ')}${names.length > 5 ? ` and ${names.length - 5} more` : ''}`;

/** "concluded failure", "is in progress": a workflow run's state as a person asks it. */
export function runState(out: Record<string, unknown>): string {
  const conclusion = str(out.conclusion);
  if (conclusion) return `concluded ${conclusion}`;
  return `is ${(str(out.status) ?? 'in an unknown state').replace(/_/g, ' ')}`;
}

/** The newest runs, each with its state, and a link to the Actions page for the rest. */
export function workflowRuns(out: Record<string, unknown>, args: Record<string, unknown>): StepResult {
  const repo = str(out.repo) ?? plain(args.repo);
  const runs = Array.isArray(out.runs) ? out.runs.filter((run): run is Record<string, unknown> => typeof run === 'object' && run !== null) : [];
  const items = runs.flatMap((run) => {
    const url = str(run.url);
    if (!url) return [];
    const name = `${str(run.name) ?? 'Run'}${num(run.runNumber) !== undefined ? ` #${num(run.runNumber)}` : ''}`;
    return [{ label: `${name}${str(run.branch) ? ` on ${str(run.branch)}` : ''} ${runState(run)}`, url }];
  });
  const total = num(out.totalCount) ?? items.length;
  const first = items[0]?.url;
  const named = plain(args.workflow);
  const workflow = named && /^[\w.-]+\.ya?ml$/.test(named) ? `/workflows/${named}` : '';
  const rest = first && repo && total > LIST_ITEMS ? `${origin(first)}/${repo}/actions${workflow}` : null;
  const which = typeof args.workflow === 'number' ? String(args.workflow) : named;
  const of = `${which ? ` of ${which}` : ''}${plain(args.branch) ? ` on ${plain(args.branch)}` : ''}`;
  return {
    kind: 'answer',
    text: `${total} workflow ${total === 1 ? 'run' : 'runs'}${of}${repo ? ` in ${repo}` : ''}`,
    link: null,
    items: items.slice(0, LIST_ITEMS),
    total,
    rest,
  };
}

/** "main is 3 commits ahead of v1.2.0 and 0 behind, 5 files changed", with the newest commits and the comparison's page. */
export function compared(out: Record<string, unknown>, args: Record<string, unknown>): StepResult {
  const url = str(out.url);
  // The planned refs, or the ones the comparison's address names when they were filled in at run time.
  const refs = url ? /\/compare\/(.+?)\.\.\.(.+)$/.exec(url) : null;
  const base = plain(args.base) ?? (refs ? decodeURIComponent(refs[1]!) : 'the base');
  const head = plain(args.head) ?? (refs ? decodeURIComponent(refs[2]!) : 'the head');
  const ahead = num(out.aheadBy) ?? 0;
  const behind = num(out.behindBy) ?? 0;
  const commits = (n: number) => `${n} ${n === 1 ? 'commit' : 'commits'}`;
  const files = Array.isArray(out.files) ? out.files.length : undefined;
  const changed = files !== undefined ? `, ${files}${out.filesTruncated === true ? '+' : ''} ${files === 1 ? 'file' : 'files'} changed` : '';
  const text =
    str(out.status) === 'identical' ? `${head} and ${base} are identical` : `${head} is ${commits(ahead)} ahead of ${base} and ${behind} behind${changed}`;
  const listed = Array.isArray(out.commits) ? out.commits.filter((c): c is Record<string, unknown> => typeof c === 'object' && c !== null) : [];
  // GitHub lists the oldest first: the newest are what a person checks first.
  const items = listed
    .flatMap((c) => (str(c.url) ? [{ label: `${(str(c.sha) ?? '').slice(0, 7)} ${str(c.message) ?? ''}`.trim(), url: str(c.url)! }] : []))
    .reverse();
  const total = num(out.totalCommits) ?? items.length;
  return { kind: 'answer', text, link: linkTo(url), items: items.slice(0, LIST_ITEMS), total, rest: url && total > LIST_ITEMS ? url : null };
}

/** What a person would ask of a repository: visibility, default branch, archived, open issues, last push. */
export function repoFacts(out: Record<string, unknown>, args: Record<string, unknown>): StepResult {
  const url = str(out.url);
  const name = str(out.fullName) ?? plain(args.repo) ?? 'The repository';
  const facts = [
    out.private === true ? 'private' : out.private === false ? 'public' : '',
    str(out.defaultBranch) ? `default branch ${str(out.defaultBranch)}` : '',
    out.archived === true ? 'archived' : '',
    num(out.openIssues) !== undefined ? openIssues(num(out.openIssues)!) : '',
    str(out.pushedAt) ? `last push ${str(out.pushedAt)!.slice(0, 10)}` : '',
  ].filter(Boolean);
  const about = str(out.description) ? ` — “${str(out.description)!.slice(0, 200)}”` : '';
  return { kind: 'answer', text: `${name}: ${facts.join(', ')}${about}`, link: linkTo(url) };
}

/** GitHub counts open pull requests among a repository's open issues. */
const openIssues = (n: number) => `${n} open ${n === 1 ? 'issue or pull request' : 'issues and pull requests'}`;
