/**
 * The demo model's other answers: the evaluator's verdicts, `llm_task`'s text and `agent_task`'s tool
 * loop. Plausible, short and made from the material it is shown (which it reads as data, never obeys).
 */
import type { LlmToolRequest } from '../../agent/ports/llm.ts';

const quoted = (text: string, key: string) => [...text.matchAll(new RegExp(`"${key}":\\s*"((?:[^"\\\\]|\\\\.)*)"`, 'g'))].map((match) => match[1]!);
const value = (text: string, key: string) => new RegExp(`"${key}":\\s*("(?:[^"\\\\]|\\\\.)*"|[^,\\n}]+)`).exec(text)?.[1]?.replace(/^"|"$/g, '').trim();

/** Passes what the tool's own checks passed, except a pull request that is not ready to merge. */
export function verdictTurn(content: string): { verdict: 'pass' | 'fail' | 'uncertain'; reason: string } {
  const title = /^Step [^:]+: (.*)$/m.exec(content)?.[1] ?? 'the step';
  if (/"readyToMerge":\s*false/.test(content)) {
    const state = value(content, 'mergeableState') ?? 'not clean';
    return { verdict: 'fail', reason: `The pull request is not ready to merge (mergeable state: ${state}); pick another one or fix it first.` };
  }
  return { verdict: 'pass', reason: `The output shows that "${title}" did what was expected.` };
}

/** Release notes from commits, a status report from its named inputs, or a plain acknowledgement. */
export function languageTurn(content: string): string {
  const instruction = /^Task: (.*)$/m.exec(content)?.[1] ?? '';
  if (/release notes/i.test(instruction)) {
    const commits = quoted(content, 'message');
    const tag = /\bv\d+\.\d+\.\d+\b/.exec(instruction)?.[0] ?? 'this release';
    return [`What's new in ${tag}:`, ...(commits.length ? commits.map((message) => `- ${message}`) : ['- Maintenance and small fixes'])].join('\n');
  }
  if (/status report/i.test(instruction)) {
    const up = (key: string) => (value(content, key) === 'true' ? 'up' : 'not answering');
    return [
      `demo/api is ${up('apiUp')}, with ${value(content, 'pulls') ?? 'some'} open pull requests; CI on main: ${value(content, 'ci') ?? 'unknown'}.`,
      `demo/web is ${up('webUp')}.`,
      value(content, 'bugs') ?? '',
    ]
      .filter(Boolean)
      .join('\n');
  }
  return `Done (demo model): ${instruction}`;
}

/** `agent_task`: one issue search, then an answer from what it found. */
export function agentTurn(request: LlmToolRequest): { text: string; toolCalls: { id: string; name: string; args: unknown }[] } {
  const results = request.messages.filter((turn) => turn.role === 'tool').flatMap((turn) => turn.results.map((result) => result.content));
  const canSearch = request.tools.some((tool) => tool.name === 'github_search_issues');
  if (results.length === 0 && canSearch && request.toolChoice !== 'none') {
    const args = { query: 'repo:demo/api repo:demo/web is:issue is:open label:bug', limit: 10 };
    return { text: '', toolCalls: [{ id: 'demo-call-1', name: 'github_search_issues', args }] };
  }
  if (!canSearch) return { text: 'The demo model can only search issues in an agent step.', toolCalls: [] };
  const found = results.join('\n');
  const repos = quoted(found, 'repo');
  const numbers = [...found.matchAll(/"number":\s*(\d+)/g)].map((match) => match[1]);
  const titles = quoted(found, 'title');
  if (!titles.length) return { text: 'No open bugs in demo/api or demo/web.', toolCalls: [] };
  return { text: `Open bugs: ${titles.map((title, i) => `${repos[i] ?? ''}#${numbers[i] ?? '?'} ${title}`).join('; ')}.`, toolCalls: [] };
}
