/**
 * `tandem start` acting as a GitHub App with TANDEM_REPOS set, through Slack's wire: writes carry the
 * App's installation token, the allow-list sends the planner back with the reason and turns a person's
 * edit into a field error, and a repository the App is not installed on is one clear escalation line.
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { stateFromView, type FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import { openAiReply } from '../fakes/openai-server.ts';
import { botMessages, clickByText, messageWithButtons, visibleText, waitFor, isSummary } from './harness.ts';
import { plan, step } from './plans.ts';
import { useStack } from './stack.ts';

const APP_ID = '777001';
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const pem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();

const stack = useStack({
  githubApp: { appId: APP_ID, publicKey },
  // One line with \n escapes, as a .env file holds it.
  env: () => ({ GITHUB_APP_ID: APP_ID, GITHUB_APP_PRIVATE_KEY: pem.trim().replace(/\n/g, '\\n'), TANDEM_REPOS: 'acme/*' }),
});
const { slack } = stack;
const finished = (channel: string, thread: string) => botMessages(slack, channel, thread).some((m) => isSummary(m) && /succeeded|done/i.test(visibleText(m)));

describe('GitHub as an App, with TANDEM_REPOS', () => {
  it('writes with the installation token of the repository, minted with a JWT GitHub accepts', async () => {
    const installation = stack.github.app!.install('acme', ['api']);
    const { thread, planMessage } = await stack.planned(
      'C30',
      'U1',
      'open an issue',
      plan('Open the issue', [step('s1', 'Open it', 'github_create_issue', { repo: 'acme/api', title: 'From the App' })]),
    );
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    await waitFor(slack, () => finished('C30', thread), 'the run to finish', 20_000);

    expect(stack.github.repos.get('acme/api')!.issues.map((issue) => issue.title)).toContain('From the App');
    const write = stack.github.requests.find((request) => request.method === 'POST' && request.path === '/repos/acme/api/issues')!;
    expect(write.installationId).toBe(installation.id);
    expect(write.authorization).toMatch(/^token ghs_/);
    expect(stack.github.app!.refusals).toEqual([]);
    expect(stack.tandem.tandem.stdout()).not.toContain(pem.split('\n')[1]!);
  });

  it('sends the planner back when a step is on a repository off the list, with the reason', async () => {
    stack.openai.enqueue(openAiReply.json(plan('File it', [step('s1', 'File it', 'github_create_issue', { repo: 'victim-org/prod', title: 'x' })])));
    const { planMessage } = await stack.planned(
      'C31',
      'U1',
      'file an issue',
      plan('File it', [step('s1', 'File it', 'github_create_issue', { repo: 'acme/api', title: 'x' })]),
    );

    expect(visibleText(planMessage)).toContain('acme/api');
    expect(visibleText(planMessage)).not.toContain('victim-org/prod');
    const repair = JSON.stringify(stack.openai.requests.at(-1)!.body);
    expect(repair).toContain('victim-org/prod is not on the allow-list: the repository allow-list allows only acme/*');
  });

  it("shows an edit onto a repository off the list as the modal's field error, and keeps the plan", async () => {
    const { thread, planMessage } = await stack.planned(
      'C32',
      'U1',
      'read the repo',
      plan('Read it', [step('s1', 'Read it', 'github_get_repo', { repo: 'acme/api' })]),
    );
    const viewsBefore = slack.model.views.size;
    await clickByText(stack.tandem.driver, planMessage, 'Modify', 'U2');
    const opened = await waitFor(
      slack,
      () => [...slack.model.views.values()].slice(viewsBefore).find((v) => JSON.stringify(v.view).includes('github_get_repo')),
      'the YAML in the modal',
    );
    const view = { id: opened.id, ...(opened.view as { callback_id: string; private_metadata?: string; blocks: unknown[] }) };
    const inputs = view.blocks.filter((b) => (b as { type: string }).type === 'input') as { block_id: string; element: { initial_value?: string } }[];
    const yamlBlock = inputs.find((b) => (b.element.initial_value ?? '').includes('github_get_repo'))!.block_id;
    const yaml = Object.values(stateFromView(view)[yamlBlock]!)[0]!.value!;
    const before = botMessages(slack, 'C32', thread).length;

    const response = await stack.tandem.driver.submitView({
      user: 'U2',
      view,
      values: stateFromView(view, { [yamlBlock]: yaml.replace('acme/api', 'victim-org/prod') }),
    });

    expect(response.body).toMatchObject({
      response_action: 'errors',
      errors: { [yamlBlock]: expect.stringContaining('victim-org/prod is not on the allow-list') },
    });
    expect(botMessages(slack, 'C32', thread)).toHaveLength(before);
  });

  it('escalates a step on a repository the App is not installed on with one clear line', async () => {
    stack.github.addRepo('acme/secret');
    const { thread, planMessage } = await stack.planned(
      'C33',
      'U1',
      'open an issue on secret',
      plan('Open it', [step('s1', 'Open it', 'github_create_issue', { repo: 'acme/secret', title: 'x' })]),
    );
    await clickByText(stack.tandem.driver, planMessage, 'Approve', 'U2');
    const escalation: FakeMessage = await waitFor(slack, () => messageWithButtons(slack, 'C33', thread, 'Retry', 'Abort'), 'the escalation', 20_000);

    expect(visibleText(escalation)).toContain("Tandem's GitHub App is not installed on acme/secret");
    expect(visibleText(escalation)).not.toMatch(/\n\s+at /);
    expect(stack.github.repos.get('acme/secret')!.issues).toEqual([]);
  });
});
