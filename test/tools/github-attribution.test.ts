import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Attribution } from '../../src/agent/ports/tool.ts';
import type { RunRecord } from '../../src/agent/ports/run-store.ts';
import { planDigest, shortDigest } from '../../src/agent/model/plan/plan-digest.ts';
import { InMemorySurface } from '../../src/agent/testing/in-memory-surface.ts';
import { attributionLine } from '../../src/integrations/github/attribution.ts';
import { createBuiltinTools } from '../../src/integrations/tools/builtin-tools.ts';
import { startFakeGithub, type FakeGithub } from '../fakes/github-server.ts';
import { makeHarness, type Harness } from '../agent/support/harness.ts';
import { ScriptedLlm, plannerAnswer } from '../agent/support/scripted-llm.ts';
import { useMemoryStore } from '../helpers/store.ts';
import { okOutput, runTool, testGithub, toolContext } from './tool-context.ts';

const db = useMemoryStore();
let github: FakeGithub;
beforeEach(async () => {
  github = await startFakeGithub();
  github.addRepo('acme/api');
  github.addIssue('acme/api', { title: 'Existing issue' });
  github.addPull('acme/api', { title: 'Feature', head: 'feat/x', mergeable: true });
});
afterEach(() => github.close());

const builtins = () => createBuiltinTools({ github: testGithub(github.url), slack: undefined, llm: undefined, httpAllow: [] });
const tool = (name: string) => builtins().find((t) => t.name === name)!;
const bodyOf = (method: string, path: RegExp) => {
  const request = github.requests.find((r) => r.method === method && path.test(r.path));
  return request?.body as Record<string, unknown> | undefined;
};

const attribution: Attribution = {
  requester: 'UREQ',
  approvers: ['UAPP', 'UTWO'],
  planVersion: 3,
  digest: 'abcdef0123456789'.repeat(4),
  threadUrl: 'https://acme.slack.com/archives/C1/p1700000000000100',
  conversation: { channel: 'C1', threadTs: '1700000000.000100' },
};

/** The last line of a body as GitHub stores it: the attribution closes it, after the reconcile marker (an HTML comment). */
const lastLine = (body: unknown) => String(body).split('\n').at(-1);

describe('the approval stamped on what Tandem writes to GitHub', () => {
  it('issue, comment and release bodies end with one line: who asked, who approved, version, short digest, thread link', async () => {
    const ctx = toolContext({ attribution });
    okOutput(await runTool(tool('github_create_issue'), { repo: 'acme/api', title: 'Rotate keys', body: 'Please rotate.' }, ctx));
    okOutput(await runTool(tool('github_comment'), { repo: 'acme/api', number: 1, body: 'Done.' }, ctx));
    okOutput(await runTool(tool('github_create_release'), { repo: 'acme/api', tag: 'v1.0.0' }, ctx));
    const expected =
      'Requested by `UREQ` in Slack, approved by `UAPP`, `UTWO` · Tandem plan v3, digest `abcdef012345` · [Slack thread](https://acme.slack.com/archives/C1/p1700000000000100)';
    expect(lastLine(bodyOf('POST', /\/issues$/)?.body)).toBe(expected);
    expect(String(bodyOf('POST', /\/issues$/)?.body)).toMatch(/^Please rotate\.\n\n<!-- tandem:[^>]+ -->\n\nRequested by /);
    expect(lastLine(bodyOf('POST', /\/issues\/1\/comments$/)?.body)).toBe(expected);
    expect(lastLine(bodyOf('POST', /\/releases$/)?.body)).toBe(expected);
  });

  it('a merge carries Requested-by and Approved-by trailers in its commit message', async () => {
    okOutput(await runTool(tool('github_merge_pull'), { repo: 'acme/api', number: 2, method: 'squash' }, toolContext({ attribution })));
    const message = String(bodyOf('PUT', /\/pulls\/2\/merge$/)?.commit_message);
    expect(message.split('\n\n').at(-1)!.split('\n')).toEqual([
      'Requested-by: UREQ (Slack)',
      'Approved-by: UAPP (Slack)',
      'Approved-by: UTWO (Slack)',
      'Tandem-Plan: v3 abcdef012345',
      'Tandem-Thread: https://acme.slack.com/archives/C1/p1700000000000100',
    ]);
  });

  it('names and links cannot become mentions, links or formatting', () => {
    const line = attributionLine({
      ...attribution,
      requester: '@octocat` [click](https://evil.example)',
      approvers: ['@team\nnext line'],
      threadUrl: 'https://evil.example/x)[more](https://evil2.example',
    });
    expect(line.split('\n')).toHaveLength(1);
    // Every @ sits inside a code span; the thread address cannot close its Markdown link early.
    const outsideCode = line.replace(/`[^`]*`/g, '');
    expect(outsideCode).not.toContain('@');
    expect(outsideCode).not.toContain('evil.example)');
    expect(line).toContain('[Slack thread](https://evil.example/x%29%5Bmore%5D%28https://evil2.example)');
  });

  it('without attribution (TANDEM_ATTRIBUTION=off) the body is what the plan said', async () => {
    okOutput(await runTool(tool('github_comment'), { repo: 'acme/api', number: 1, body: 'Done.' }, toolContext()));
    expect(String(bodyOf('POST', /\/issues\/1\/comments$/)?.body)).toMatch(/^Done\.\n\n<!-- tandem:[^>]+ -->$/);
    okOutput(await runTool(tool('github_merge_pull'), { repo: 'acme/api', number: 2 }, toolContext()));
    expect(bodyOf('PUT', /\/pulls\/2\/merge$/)).not.toHaveProperty('commit_message');
  });
});

class LinkedSurface extends InMemorySurface {
  async threadLink(run: RunRecord): Promise<string | undefined> {
    return `https://acme.slack.com/archives/${run.conversation.channel}/p${run.conversation.threadTs.replace(/\D/g, '')}`;
  }
}

describe('the executor gives a write step its attribution', () => {
  let h: Harness;
  const commentPlan = plannerAnswer({ steps: [{ id: 's1', tool: 'github_comment', args: { repo: 'acme/api', number: 1, body: 'Shipped.' } }] });

  it('the comment a run writes names its requester, its approver, the version, its digest and the thread', async () => {
    h = makeHarness({ store: db.store, tools: builtins(), llm: new ScriptedLlm().on('planner', commentPlan), surface: new LinkedSurface() });
    const run = await h.start('comment shipped', 'UREQ');
    await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' });
    await h.agent.idle();
    const digest = shortDigest(await planDigest((await h.store.getPlanVersion(run.id, 1))!.plan));
    const line = lastLine(bodyOf('POST', /\/issues\/1\/comments$/)?.body);
    expect(line).toBe(
      `Requested by \`UREQ\` in Slack, approved by \`UAPP\` · Tandem plan v1, digest \`${digest}\` · [Slack thread](https://acme.slack.com/archives/C1/p${run.conversation.threadTs.replace(/\D/g, '')})`,
    );
    h.llm.assertDone();
    expect(h.errors).toEqual([]);
  });

  it('with attribution off, it writes the body as approved', async () => {
    h = makeHarness({
      store: db.store,
      tools: builtins(),
      llm: new ScriptedLlm().on('planner', commentPlan),
      surface: new LinkedSurface(),
      settings: { attribution: false },
    });
    const run = await h.start('comment shipped', 'UREQ');
    await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' });
    await h.agent.idle();
    expect(String(bodyOf('POST', /\/issues\/1\/comments$/)?.body)).toMatch(/^Shipped\.\n\n<!-- tandem:[^>]+ -->$/);
    h.llm.assertDone();
  });
});
