/**
 * `tandem audit [--run <runId>]`: after runs that followed the rules it exits 0; when the store holds a
 * step that ran without an approval an allowed person gave (forged here by writing the store directly,
 * as an auditor must catch whatever wrote it), it prints the violation and exits 1.
 */
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { runTandem } from '../cli/tandem-process.ts';
import { botMessages, clickByText, messageWithButtons, poll, visibleText, waitFor, isSummary } from './harness.ts';
import { plan, step } from './plans.ts';
import { useStack } from './stack.ts';

const stack = useStack();
const { slack } = stack;
const summaryIn = (channel: string, thread: string) => botMessages(slack, channel, thread).find((m) => isSummary(m));

/** Runs SQL on the stopped bot's store: PostgreSQL through DATABASE_URL, else the PGlite folder under DATA_DIR. */
async function sql<T extends Record<string, unknown>>(query: string, params: unknown[] = []): Promise<T[]> {
  if (stack.env.DATABASE_URL) {
    const client = postgres(stack.env.DATABASE_URL, { max: 1, onnotice: () => {} });
    try {
      return (await client.unsafe(query, params as never[])) as unknown as T[];
    } finally {
      await client.end();
    }
  }
  const client = await PGlite.create(path.join(stack.env.DATA_DIR!, 'pglite'));
  try {
    return (await client.query<T>(query, params)).rows;
  } finally {
    await client.close();
  }
}

async function audit(...args: string[]): Promise<{ code: number | null; out: string }> {
  return auditWith({}, ...args);
}

async function auditWith(env: Record<string, string>, ...args: string[]): Promise<{ code: number | null; out: string }> {
  const cli = runTandem(['audit', ...args], { ...stack.env, ...env }, stack.cwd);
  const code = await cli.exited;
  return { code, out: `${cli.stdout()}\n${cli.stderr()}` };
}

const runIdIn = async (channel: string) => (await sql<{ id: string }>('select id from runs where channel = $1', [channel]))[0]!.id;

describe('tandem audit', () => {
  it('clean scenarios: an approved write, a four-eyes merge and a confirmed late-bound target', async () => {
    const a = await stack.planned(
      'CD1',
      'U1',
      'tell CD1-out',
      plan('Tell CD1-out', [step('s1', 'Tell it', 'slack_notify', { channel: 'CD1-out', text: 'clean' })]),
    );
    await clickByText(stack.tandem.driver, a.planMessage, 'Approve', 'U2');

    const pull = stack.github.addPull('acme/api', { title: 'Four eyes', head: 'four-eyes' });
    const b = await stack.planned(
      'CD2',
      'U2',
      'merge it',
      plan('Merge it', [step('s1', 'Merge it', 'github_merge_pull', { repo: 'acme/api', number: pull.number })]),
    );
    await clickByText(stack.tandem.driver, b.planMessage, 'Approve', 'U3');

    const c = await stack.planned(
      'CD3',
      'U1',
      'ask and tell',
      plan('Ask where, then tell there', [
        step('s1', 'Ask where', 'ask_human', { question: 'Which channel should hear it?' }),
        step('s2', 'Tell it', 'slack_notify', { channel: '{{steps.s1.output.answer}}', text: 'confirmed' }, ['s1']),
      ]),
    );
    await clickByText(stack.tandem.driver, c.planMessage, 'Approve', 'U2');
    await waitFor(
      slack,
      () => botMessages(slack, 'CD3', c.thread).some((m) => m.ts > c.planMessage.ts && visibleText(m).includes('Which channel should hear it?')),
      'the question',
      20_000,
    );
    await stack.tandem.driver.mention({ channel: 'CD3', user: 'U1', text: '<@UBOT> CD3-out', threadTs: c.thread });
    const confirm = await waitFor(slack, () => messageWithButtons(slack, 'CD3', c.thread, 'Confirm', 'Abort'), 'the Confirm request', 20_000);
    await clickByText(stack.tandem.driver, confirm, 'Confirm', 'U3');

    await poll(() => stack.github.repos.get('acme/api')!.pulls.get(pull.number)!.merged, 'the merge', 20_000);
    for (const [channel, thread] of [
      ['CD1', a.thread],
      ['CD2', b.thread],
      ['CD3', c.thread],
    ] as const) {
      await waitFor(slack, () => summaryIn(channel, thread), `the summary in ${channel}`, 20_000);
    }
    expect(stack.texts('CD3-out')).toEqual(['confirmed']);
    expect(await stack.tandem.stop()).toBe(0);
  }, 120_000);

  it('exits 0 over the whole store and for one run', async () => {
    const all = await audit();
    expect(all.code, all.out).toBe(0);
    const one = await audit('--run', await runIdIn('CD2'));
    expect(one.code, one.out).toBe(0);
  }, 120_000);

  it('judges a Confirm by who was allowed when it was given: U3 leaving TANDEM_APPROVERS later is no violation', async () => {
    // U3 confirmed CD3's late-bound target while TANDEM_APPROVERS named them (CONTRACT §1: "under the policy in force when they decided").
    const result = await auditWith({ TANDEM_APPROVERS: 'U2,U5' }, '--run', await runIdIn('CD3'));
    expect(result.code, result.out).toBe(0);
  }, 120_000);

  it('an unknown run, an empty run id or a stray word is not taken for a clean audit', async () => {
    const unknown = await audit('--run', 'run_nope');
    expect(unknown.code, unknown.out).toBe(1);
    expect(unknown.out).toContain('no run with id run_nope');
    for (const args of [['--run', ''], ['--run', ' '], ['everything']]) {
      const refused = await audit(...args);
      expect(refused.code, refused.out).toBe(2);
      expect(refused.out).not.toContain('no violations');
    }
  }, 120_000);

  it('a step that ran with no approval of its version: exit 1 and the violation printed, naming the run', async () => {
    const runId = await runIdIn('CD1');
    await sql('delete from approvals where run_id = $1', [runId]);
    const all = await audit();
    expect(all.code, all.out).toBe(1);
    expect(all.out).toContain(runId);
    expect(all.out).toMatch(/s1/);
    const other = await audit('--run', await runIdIn('CD2'));
    expect(other.code, other.out).toBe(0);
  }, 120_000);

  it('a destructive step approved only by its requester: exit 1', async () => {
    const runId = await runIdIn('CD2');
    await sql(`update approvals set user_id = 'U2' where run_id = $1`, [runId]);
    const result = await audit('--run', runId);
    expect(result.code, result.out).toBe(1);
    expect(result.out).toContain(runId);
  }, 120_000);

  it('a late-bound target that ran without a Confirm: exit 1', async () => {
    const runId = await runIdIn('CD3');
    await sql('delete from target_confirmations where run_id = $1', [runId]);
    const result = await audit('--run', runId);
    expect(result.code, result.out).toBe(1);
    expect(result.out).toContain(runId);
  }, 120_000);

  it('an approval by someone not on TANDEM_APPROVERS: exit 1', async () => {
    const runId = await runIdIn('CD1');
    await sql(`insert into approvals (run_id, plan_version, user_id, decision) values ($1, 1, 'U9', 'approved')`, [runId]);
    // The approvers named one by one: the user group S… of the running bot resolved to U5.
    const result = await auditWith({ TANDEM_APPROVERS: 'U2,U3,U5' }, '--run', runId);
    expect(result.code, result.out).toBe(1);
    expect(result.out).toContain(runId);
  }, 120_000);

  it("the same approval audited with the bot's own configuration (a user group S… among the approvers): exit 1", async () => {
    const runId = await runIdIn('CD1');
    // TANDEM_APPROVERS is U2,U3,SAPPROVERS and SAPPROVERS holds U5 only: the audit asks Slack who is in it.
    const result = await audit('--run', runId);
    expect(result.code, result.out).toBe(1);
    expect(result.out).toContain(runId);
  }, 120_000);
});
