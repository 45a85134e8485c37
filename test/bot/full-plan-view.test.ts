import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Plan } from '../../src/agent/model/plan/plan.ts';
import { planDigest, shortDigest } from '../../src/agent/model/plan/plan-digest.ts';
import type { Risk } from '../../src/agent/ports/tool.ts';
import { decodePlanRef } from '../../src/bot/views/button-values.ts';
import { FULL_PLAN_ACTION, fullPlanViews } from '../../src/bot/views/plan/full-plan-modal.ts';
import { MessageBlocksSchema, ModalViewSchema, type MessageBlock } from '../../src/bot/views/limits.ts';
import { PLAN_APPROVE_ACTION, planMessages } from '../../src/bot/views/plan/plan-message.ts';
import { makeProposal } from '../fakes/slack-fixtures.ts';

type TextBlock = { type: string; block_id?: string; text?: { type: string; text: string }; elements?: { type?: string; text?: string }[] };

const unescape = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
/** The mrkdwn texts of blocks (a header's plain_text shows its characters as they are, so it is not one). */
const texts = (blocks: readonly unknown[]) =>
  (blocks as TextBlock[]).flatMap((block) => [
    block.text?.type === 'mrkdwn' ? block.text.text : '',
    ...(block.elements ?? []).map((element) => (element.type === 'mrkdwn' ? (element.text ?? '') : '')),
  ]);

/**
 * Every argument the full view shows, put back together from its sections (in modal order, then the
 * continuation messages): `stepId.name` → the value parsed back from the JSON shown.
 */
function shownArgs(views: ReturnType<typeof fullPlanViews>): Map<string, unknown> {
  const pieces = new Map<string, string>();
  const blocks = [...views.modal.blocks, ...views.rest.flatMap((message) => message.blocks)] as TextBlock[];
  for (const block of blocks) {
    const match = /^`([^`]+)` · \*([^*]*)\*(?: \(part \d+ of \d+\))?\n```([\s\S]*)```$/.exec(block.text?.text ?? '');
    if (!match) continue;
    const key = `${unescape(match[1]!)}.${unescape(match[2]!)}`;
    pieces.set(key, (pieces.get(key) ?? '') + unescape(match[3]!));
  }
  return new Map([...pieces].map(([key, json]) => [key, JSON.parse(json) as unknown]));
}

function expectModalWithinLimits(views: ReturnType<typeof fullPlanViews>) {
  const modal = ModalViewSchema.safeParse(views.modal);
  expect(modal.success ? [] : modal.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([]);
  expect(JSON.stringify(views.modal).length).toBeLessThan(250_000);
  for (const message of views.rest) {
    const parsed = MessageBlocksSchema.safeParse(message.blocks);
    expect(parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([]);
  }
}

/** No text the bot sends renders a mention or a link it did not write itself (the requester's `<@UREQ>`). */
function expectNothingRendered(allTexts: readonly string[]) {
  for (const text of allTexts) expect(text.replace(/<@UREQ>/g, '')).not.toMatch(/[<>]/);
}

const notifyPlan = (text: string): Plan => ({
  schemaVersion: 1,
  goal: 'Tell the channel the deploy finished',
  confidence: 0.9,
  steps: [{ id: 's1', title: 'Announce', tool: 'slack_notify', args: { channel: 'C0DEPLOY', text }, dependsOn: [] }],
  rollback: [],
});

async function viewsOf(plan: Plan) {
  const digest = await planDigest(plan);
  const risks: Record<string, Risk> = Object.fromEntries([...plan.steps, ...plan.rollback].map((step) => [step.id, 'write' as const]));
  const messages = planMessages(makeProposal(plan, { risks, digest, attribution: true }));
  return { digest, messages, full: fullPlanViews({ planVersion: 1, plan, digest, attribution: true }) };
}

describe('approvers see what runs (issue 28 probes)', () => {
  it('a slack_notify that pings @channel behind 30 spaces and a disguised link is flagged on the plan and shown whole in the full view', async () => {
    const text = `Deploy finished, all green.${' '.repeat(30)}<!channel> <https://evil.example/approve|Approve the hotfix here>`;
    const { messages, full } = await viewsOf(notifyPlan(text));
    const shown = messages.flatMap((message) => texts(message.blocks)).join('\n');
    expect(shown).toContain('pings @channel');
    expect(shown).toContain('link text differs from its address');
    expect(unescape(shown)).toContain('"Approve the hotfix here" leads to https://evil.example/approve');
    expectNothingRendered(messages.flatMap((message) => texts(message.blocks)));
    expect(shownArgs(full).get('s1.text')).toBe(text);
    expectNothingRendered(texts(full.modal.blocks));
  });

  it('a dispatch whose inputs hide environment: production, force: true behind a long note shows every input', async () => {
    const inputs = { note: 'routine redeploy of staging services after the config rotation, nothing to see here', environment: 'production', force: true };
    const plan: Plan = {
      schemaVersion: 1,
      goal: 'Redeploy staging',
      confidence: 0.9,
      steps: [
        {
          id: 's1',
          title: 'Redeploy',
          tool: 'github_dispatch_workflow',
          args: { repo: 'acme/api', workflow: 'deploy.yml', ref: 'main', inputs },
          dependsOn: [],
        },
      ],
      rollback: [],
    };
    const { full } = await viewsOf(plan);
    expect(shownArgs(full).get('s1.inputs')).toEqual(inputs);
    expect(unescape(texts(full.modal.blocks).join('\n'))).toContain('"environment": "production"');
  });

  it('the plan message has a View full plan button, shows the short digest, and Approve carries it', async () => {
    const plan: Plan = {
      ...notifyPlan('hello'),
      rollback: [{ id: 'r1', title: 'Say sorry', tool: 'github_comment', args: { repo: 'acme/api', number: 7, body: 'sorry' } }],
    };
    const { digest, messages } = await viewsOf(plan);
    const last = messages.at(-1)!.blocks as MessageBlock[];
    const buttons = last.flatMap((block) => (block.type === 'actions' ? block.elements : []));
    expect(buttons.map((button) => button.action_id)).toContain(FULL_PLAN_ACTION);
    const approve = buttons.find((button) => button.action_id === PLAN_APPROVE_ACTION);
    expect(decodePlanRef(approve?.value)).toEqual({ runId: 'run_1', planVersion: 1, digest: shortDigest(digest) });
    const shown = messages.flatMap((message) => texts(message.blocks)).join('\n');
    expect(shown).toContain(shortDigest(digest));
    expect(shown).toContain('adds an attribution line');
  });

  it('a giant argument gets a clear view over more than one window, nothing lost, every piece within Slack limits', async () => {
    const body = (index: number) => `release notes ${index} <@U1> & ${'x'.repeat(95_000)} ${'🚀'.repeat(1000)} end`;
    const plan: Plan = {
      schemaVersion: 1,
      goal: 'Ship three releases',
      confidence: 0.9,
      steps: [1, 2, 3].map((index) => ({
        id: `s${index}`,
        title: `Release ${index}`,
        tool: 'github_create_release',
        args: { repo: 'acme/api', tag: `v${index}.0.0`, body: body(index) },
        dependsOn: [],
      })),
      rollback: [],
    };
    const { full } = await viewsOf(plan);
    expectModalWithinLimits(full);
    expect(full.rest.length).toBeGreaterThan(0);
    expect(texts(full.modal.blocks).join('\n')).toContain('longer than one window');
    const args = shownArgs(full);
    for (const index of [1, 2, 3]) expect(args.get(`s${index}.body`)).toBe(body(index));
  });
});

describe('the plan view holds every argument in full, with no mention rendered', () => {
  const hostileText = fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    fc.constantFrom(
      '<!channel>',
      '<!here|here>',
      '<!everyone>',
      '<!subteam^S0123|oncall>',
      '<@U0ABC>',
      '<#C0ABC>',
      '<https://evil.example|https://good.example>',
      '{{steps.s1.output.text}}',
      '```',
      '`',
      '*bold* _it_ ~s~',
      '&amp; &lt;',
      '\n',
      ' '.repeat(40),
    ),
    fc.string({ unit: 'binary', minLength: 2000, maxLength: 7000 }),
  );
  const value = fc.oneof(
    fc.array(hostileText, { minLength: 1, maxLength: 6 }).map((parts) => parts.join('')),
    fc.dictionary(fc.constantFrom('note', 'environment', 'force', '<!here>'), fc.oneof(hostileText, fc.boolean(), fc.integer())),
    fc.array(hostileText, { maxLength: 4 }),
  );
  const args = fc.dictionary(fc.constantFrom('repo', 'body', 'title', 'text', 'inputs', 'labels'), value, { minKeys: 1, maxKeys: 4 });

  it('for generated arguments: every value comes back whole from the full view; neither view renders a mention or link', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(args, { minLength: 1, maxLength: 3 }), args, async (stepArgs, rollbackArgs) => {
        const plan: Plan = {
          schemaVersion: 1,
          goal: 'Generated <!channel> & goal',
          confidence: 0.9,
          steps: stepArgs.map((a, index) => ({ id: `s${index + 1}`, title: `Write <!here> ${index}`, tool: 'github_comment', args: a, dependsOn: [] })),
          rollback: [{ id: 'r1', title: 'Undo', tool: 'slack_notify', args: rollbackArgs }],
        };
        const { messages, full } = await viewsOf(plan);
        expectModalWithinLimits(full);
        for (const message of messages) expect(MessageBlocksSchema.safeParse(message.blocks).success).toBe(true);
        const shown = shownArgs(full);
        for (const step of [...plan.steps, ...plan.rollback])
          for (const [name, argValue] of Object.entries(step.args)) expect(shown.get(`${step.id}.${name}`)).toEqual(argValue);
        expectNothingRendered([
          ...messages.flatMap((message) => texts(message.blocks)),
          ...texts(full.modal.blocks),
          ...full.rest.flatMap((m) => texts(m.blocks)),
        ]);
      }),
      { numRuns: 60 },
    );
  });
});
