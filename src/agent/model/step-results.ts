/**
 * What a step found or did, in a few words a person asked for: a read's answer (a health check's status
 * and latency, a model's text, the list a search found) and a change in the past tense with its link
 * ("Opened acme/api#42 “Flaky test”"). Pure: a step's tool, args and stored output in, a short result out.
 * Ids, tokens and raw args stay out; they live in `tandem show`.
 */
import { compared, pullList, pullReadiness, repoFacts, runState, workflowRuns } from './github-read-results.ts';
import { LIST_ITEMS, linkLabel, linkTo, num, origin, str, type ResultLink, type StepResult } from './result-parts.ts';

export { LIST_ITEMS, linkLabel, ResultLinkSchema, StepResultSchema, type ResultLink, type StepResult } from './result-parts.ts';

export interface ResultSource {
  tool: string;
  title: string;
  /** The args as planned (references unfilled where they were references). */
  args: Record<string, unknown>;
  output: Record<string, unknown> | null;
  /** The tool's risk: a write without words of its own is still a change, said by its title. */
  risk?: 'read' | 'write' | 'destructive';
}

/** Standard reason phrases for the statuses a health check meets most. */
const REASONS: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  301: 'Moved Permanently',
  302: 'Found',
  304: 'Not Modified',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** The result of one step that produced output; undefined when it has nothing a person would read. */
export function stepResult(step: ResultSource): StepResult | undefined {
  const out = step.output;
  const changed = step.risk !== undefined && step.risk !== 'read';
  if (!out) return changed ? { kind: 'change', text: step.title, link: null } : undefined;
  const make = RESULTS[step.tool];
  return make ? make(out, step.args, step.title) : fallback(step, out, changed);
}

type Maker = (out: Record<string, unknown>, args: Record<string, unknown>, title: string) => StepResult | undefined;

const RESULTS: Record<string, Maker> = {
  http_check: (out) => {
    const url = str(out.url);
    const status = num(out.status) ?? 0;
    const latency = num(out.latencyMs);
    const where = url ? linkLabel(url) : 'The address';
    if (status === 0) return { kind: 'answer', text: `${where} could not be reached${str(out.error) ? `: ${str(out.error)}` : ''}`, link: linkTo(url) };
    const reason = REASONS[status] ? ` ${REASONS[status]}` : '';
    const contains = out.contains === true ? ', with the expected text' : out.contains === false ? ', without the expected text' : '';
    return { kind: 'answer', text: `${where} answered ${status}${reason}${latency !== undefined ? ` in ${latency} ms` : ''}${contains}`, link: linkTo(url) };
  },
  agent_task: (out, _args, title) => (str(out.text) ? { kind: 'answer', text: str(out.text)!, link: null, title } : undefined),
  llm_task: (out, _args, title) => (str(out.text) ? { kind: 'answer', text: str(out.text)!, link: null, title } : undefined),
  ask_human: () => undefined,
  wait: () => undefined,
  sleep: () => undefined,
  github_search_issues: (out) => {
    const items = listOf(out.items, (item) => `${linkLabel(str(item.url) ?? '')} ${str(item.title) ?? ''}`.trim());
    const total = num(out.totalCount) ?? items.length;
    const first = items[0]?.url;
    const query = str(out.query);
    const rest = first && query && total > LIST_ITEMS ? `${origin(first)}/search?q=${encodeURIComponent(query)}&type=issues` : null;
    return {
      kind: 'answer',
      text: `Found ${total} ${total === 1 ? 'match' : 'matches'}${query ? ` for “${query}”` : ''}`,
      link: null,
      items: items.slice(0, LIST_ITEMS),
      total,
      rest,
    };
  },
  github_list_pulls: (out) => pullList(out),
  github_get_pull: (out) => {
    const url = str(out.url);
    const state = out.merged === true ? 'merged' : out.draft === true && out.state === 'open' ? 'an open draft' : str(out.state);
    const said = `${url ? linkLabel(url) : 'The pull request'} “${str(out.title) ?? ''}”${state ? ` is ${state}` : ''}`;
    // Mergeability and checks matter only while it can still be merged.
    const open = out.merged !== true && out.state === 'open';
    return { kind: 'answer', text: open ? `${said}; ${pullReadiness(out)}` : said, link: linkTo(url) };
  },
  github_list_workflow_runs: (out, args) => workflowRuns(out, args),
  github_get_workflow_run: (out) => {
    const url = str(out.url);
    const name = `${str(out.name) ?? 'Workflow run'}${num(out.runNumber) !== undefined ? ` #${num(out.runNumber)}` : ''}`;
    const branch = str(out.branch) ? ` on ${str(out.branch)}` : '';
    return { kind: 'answer', text: `${name}${branch} ${runState(out)}`, link: linkTo(url) };
  },
  github_compare: (out, args) => compared(out, args),
  github_get_repo: (out, args) => repoFacts(out, args),
  github_create_issue: (out, args) => {
    const url = str(out.url);
    const label = url ? linkLabel(url) : `${str(args.repo) ?? 'an issue'}`;
    return { kind: 'change', text: `Opened ${label}${str(out.title) ? ` “${str(out.title)}”` : ''}`, link: linkTo(url) };
  },
  github_comment: (out, args) => {
    const url = str(out.url);
    const on = url ? linkLabel(url) : `${str(args.repo) ?? ''}#${String(out.number ?? args.number ?? '')}`;
    return { kind: 'change', text: `Commented on ${on}`, link: linkTo(url) };
  },
  github_merge_pull: (out, args) => {
    const url = str(out.url);
    const method = str(args.method);
    const what = url ? linkLabel(url) : `${str(args.repo) ?? ''}#${String(out.number ?? args.number ?? '')}`;
    return { kind: 'change', text: `Merged ${what}${method && method !== 'merge' ? ` (${method})` : ''}`, link: linkTo(url) };
  },
  github_add_labels: (out) => {
    const url = str(out.url);
    const labels = Array.isArray(out.labels) ? out.labels.filter((label): label is string => typeof label === 'string') : [];
    return { kind: 'change', text: `Labelled ${url ? linkLabel(url) : 'it'}${labels.length ? ` ${labels.join(', ')}` : ''}`, link: linkTo(url) };
  },
  github_create_release: (out, args) => {
    const url = str(out.url);
    const tag = str(out.tag) ?? str(args.tag) ?? '';
    const repo = str(args.repo);
    return { kind: 'change', text: `${out.draft === true ? 'Drafted release' : 'Released'} ${tag}${repo ? ` of ${repo}` : ''}`, link: linkTo(url) };
  },
  github_dispatch_workflow: (out, args) => {
    const url = str(out.url);
    const workflow = str(args.workflow) ?? 'the workflow';
    const ended = str(out.conclusion) ?? str(out.status);
    return { kind: 'change', text: `Ran ${workflow}${str(args.repo) ? ` on ${str(args.repo)}` : ''}${ended ? ` — ${ended}` : ''}`, link: linkTo(url) };
  },
  slack_notify: (out, args) => {
    const channel = str(args.channel) ?? str(out.channel) ?? 'the channel';
    const url = str(out.url);
    return {
      kind: 'change',
      text: `Posted in ${channel.startsWith('#') || /^[CDG][A-Z0-9]+$/.test(channel) ? channel : `#${channel}`}`,
      link: url ? { label: 'the message', url } : null,
    };
  },
};

/** A tool without its own words (an MCP tool, a test's): its title for what it did, and the address it returned. */
function fallback(step: ResultSource, out: Record<string, unknown>, changed: boolean): StepResult | undefined {
  const url = str(out.url);
  if (changed) return { kind: 'change', text: step.title, link: linkTo(url) };
  if (!url) return undefined;
  return { kind: 'answer', text: step.title, link: linkTo(url) };
}

function listOf(raw: unknown, label: (item: Record<string, unknown>) => string): ResultLink[] {
  if (!Array.isArray(raw)) return [];
  return raw
    .filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null)
    .flatMap((item) => (str(item.url) ? [{ label: label(item), url: str(item.url)! }] : []));
}

/** `skipped: s3 failed` (execution/ready-steps.ts): the step it waited for, by id, and what became of it. */
const SKIPPED_AFTER = /^skipped: (\S+) (failed|was skipped|uncertain|cancelled)$/;
/** `s2.args.repo: …` (execution/step-runner.ts): an argument of the step, by the step's id. */
const ARGUMENT_OF = /^([A-Za-z][A-Za-z0-9_-]{0,39})\.args\.([^:\s]*): /;

/**
 * A step's stored note as a person reads it on the board: the step it waited for by its title ("skipped
 * because “Deploy web” failed"), an argument by its name, never a step id. The stored note keeps the id
 * for `tandem show` and the logs. `titleOf` knows the forward steps of the note's plan version.
 */
export function stepNoteWords(note: string, stepId: string, titleOf: (id: string) => string | undefined): string {
  const skipped = SKIPPED_AFTER.exec(note);
  if (skipped) {
    const title = titleOf(skipped[1]!);
    const what = skipped[2] === 'uncertain' ? 'may or may not have taken effect' : skipped[2]!;
    return title ? `skipped because “${title}” ${what}` : 'skipped because a step it waits for did not succeed';
  }
  const argument = ARGUMENT_OF.exec(note);
  if (argument && argument[1] === stepId) return `${argument[2] ? `argument ${argument[2]}` : 'its arguments'}: ${note.slice(argument[0].length)}`;
  return note;
}
