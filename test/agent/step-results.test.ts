/** Results first (issue 29, part 2): what a step found or did, in the words a person asked for. */
import { describe, expect, it } from 'vitest';
import { LIST_ITEMS, linkLabel, stepResult } from '../../src/agent/model/step-results.ts';

const result = (tool: string, output: Record<string, unknown> | null, args: Record<string, unknown> = {}) =>
  stepResult({ tool, title: 'The step', args, output });

describe('stepResult', () => {
  it('an http_check answers with its status and latency', () => {
    expect(result('http_check', { url: 'https://status.acme.test/health', status: 200, ok: true, latencyMs: 42 })).toEqual({
      kind: 'answer',
      text: 'status.acme.test/health answered 200 OK in 42 ms',
      link: { label: 'status.acme.test/health', url: 'https://status.acme.test/health' },
    });
    expect(result('http_check', { url: 'https://a.test/missing', status: 404, ok: false, latencyMs: 7 })?.text).toBe(
      'a.test/missing answered 404 Not Found in 7 ms',
    );
    expect(result('http_check', { url: 'https://a.test/', status: 0, ok: false, latencyMs: 3, error: 'ECONNREFUSED' })?.text).toBe(
      'a.test could not be reached: ECONNREFUSED',
    );
  });

  it("an agent_task's and an llm_task's answer is their text", () => {
    expect(result('agent_task', { text: 'Three flaky tests: a, b, c.', calls: [] })).toMatchObject({ kind: 'answer', text: 'Three flaky tests: a, b, c.' });
    expect(result('llm_task', { text: 'Release notes…' })).toMatchObject({ kind: 'answer', text: 'Release notes…' });
  });

  it('a search lists its first items, counts all of them and links to the rest', () => {
    const items = Array.from({ length: 8 }, (_, index) => ({
      number: index + 1,
      title: `Flaky ${index + 1}`,
      url: `https://github.com/acme/api/issues/${index + 1}`,
      repo: 'acme/api',
      isPull: false,
    }));
    const found = result('github_search_issues', { query: 'is:open flaky', totalCount: 23, incomplete: false, items })!;
    expect(found.text).toBe('Found 23 matches for “is:open flaky”');
    expect(found.items).toHaveLength(LIST_ITEMS);
    expect(found.items![0]).toEqual({ label: 'acme/api#1 Flaky 1', url: 'https://github.com/acme/api/issues/1' });
    expect(found.total).toBe(23);
    expect(found.rest).toBe('https://github.com/search?q=is%3Aopen%20flaky&type=issues');
  });

  it('changes are said in the past tense, with their links labelled by what they are', () => {
    expect(result('github_create_issue', { number: 42, url: 'https://github.com/acme/api/issues/42', title: 'Flaky test' }, { repo: 'acme/api' })).toEqual({
      kind: 'change',
      text: 'Opened acme/api#42 “Flaky test”',
      link: { label: 'acme/api#42', url: 'https://github.com/acme/api/issues/42' },
    });
    expect(
      result(
        'github_merge_pull',
        { number: 7, url: 'https://github.com/acme/api/pull/7', merged: true, sha: 'abc' },
        { repo: 'acme/api', number: 7, method: 'squash' },
      )?.text,
    ).toBe('Merged acme/api#7 (squash)');
    expect(result('github_comment', { number: 7, commentId: 1, url: 'https://github.com/acme/api/issues/7#issuecomment-1' })?.text).toBe(
      'Commented on acme/api#7',
    );
  });

  it('a step with no output has no result, and a link is labelled by its address', () => {
    expect(result('http_check', null)).toBeUndefined();
    expect(linkLabel('https://ghe.acme.test/acme/api/pull/3')).toBe('acme/api#3');
    expect(linkLabel('not a url')).toBe('not a url');
    expect(linkLabel('https://github.com/acme/api/compare/v2.3.0...main')).toBe('acme/api v2.3.0...main');
    expect(linkLabel('https://github.com/acme/api/releases/tag/v2.4.0')).toBe('acme/api v2.4.0');
  });
});
