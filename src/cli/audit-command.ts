import { auditRuns, formatViolation } from '../audit/audit.ts';
import type { AuditContext } from '../audit/run-facts.ts';
import type { Config } from '../config/config.ts';
import { createBuiltinTools } from '../integrations/tools/builtin-tools.ts';
import { createLogger } from '../observability/logger.ts';
import { createRunStore } from '../store/index.ts';
import type { Db } from '../store/database.ts';
import { policyTexts } from '../store/schema.ts';
import type { PolicyEngine } from '../agent/ports/policy.ts';
import type { StoreCommandContext } from './command-io.ts';

/**
 * Risk and targets of the built-in tools (nothing is called, so no token is needed); a tool the audit
 * does not know (an MCP tool: no server is started) takes the risk its steps stored when they ran
 * (stored-risks.ts), and destructive when none did, as the policy counts it. Approvers named directly in
 * TANDEM_APPROVERS are known here; members of its user groups only when `groupMembers` could be asked of
 * Slack (today's members: someone who left a group since approving shows as not allowed, and is worth a look).
 */
export function auditContext(config: Readonly<Config>, groupMembers?: ReadonlySet<string>): AuditContext {
  const tools = new Map(createBuiltinTools({ github: undefined, slack: undefined, llm: undefined, httpAllow: [] }).map((tool) => [tool.name, tool]));
  const users = config.approvers.filter((id) => !id.startsWith('S'));
  const groups = config.approvers.length > users.length;
  const judge = (userId: string) => {
    if (users.includes(userId) || groupMembers?.has(userId)) return true;
    return groups && !groupMembers ? undefined : false;
  };
  return {
    riskOf: (name) => tools.get(name)?.risk,
    toolOf: (name) => tools.get(name),
    isApprover: (userId) => (config.approvers.length === 0 ? undefined : judge(userId)),
    repositories: config.github.repos,
  };
}

/** The members of TANDEM_APPROVERS' user groups, asked of Slack; a reason instead when it cannot be told. */
async function approverGroupMembers(config: Readonly<Config>): Promise<ReadonlySet<string> | string | undefined> {
  const groups = config.approvers.filter((id) => id.startsWith('S'));
  if (!groups.length) return undefined;
  if (!config.slack.botToken) return 'no SLACK_BOT_TOKEN to ask Slack who is in the user groups';
  // Bolt's web client loads only when there are groups to ask about.
  const { createSlackClient } = await import('../bot/surface/slack-client.ts');
  const client = createSlackClient(config, createLogger({ level: 'silent', secrets: [] }), { retries: 1, timeoutMs: 5_000 });
  try {
    const members = new Set<string>();
    for (const usergroup of groups) for (const user of (await client.usergroups.users.list({ usergroup })).users ?? []) members.add(user);
    return members;
  } catch (error) {
    return `Slack did not say who is in the user groups (${(error as Error).message})`;
  }
}

export async function auditCommand({ config, io, openDatabase }: StoreCommandContext, runId: string | undefined): Promise<number> {
  const database = await openDatabase();
  try {
    const members = await approverGroupMembers(config);
    if (typeof members === 'string') io.err(`tandem: user-group membership not judged: ${members}\n`);
    const context = { ...auditContext(config, typeof members === 'string' ? undefined : members), policyOf: await storedPolicies(database.db) };
    const result = await auditRuns(createRunStore(database.db), context, runId ? { runId } : {});
    if ('missing' in result) {
      io.err(`tandem: no run with id ${result.missing}. List them with: tandem runs\n`);
      return 1;
    }
    for (const found of result.violations) io.out(`${formatViolation(found)}\n`);
    const runs = `${result.runs} run${result.runs === 1 ? '' : 's'}`;
    io.out(result.violations.length ? `${result.violations.length} violation(s) in ${runs}\n` : `${runs} checked: no violations\n`);
    return result.violations.length ? 1 : 0;
  } finally {
    await database.close();
  }
}

/** Every policy stored by hash (decision 028), loaded once each: the audit judges decisions by the policy then in force. */
async function storedPolicies(db: Db): Promise<(hash: string) => PolicyEngine | undefined> {
  const rows = await db.select().from(policyTexts);
  // Cedar (WebAssembly) loads only when a policy was ever in force.
  const { loadPolicy } = rows.length ? await import('../policy/cedar-engine.ts') : { loadPolicy: undefined };
  const loaded = new Map<string, PolicyEngine | undefined>();
  return (hash) => {
    if (!loaded.has(hash)) {
      const row = rows.find((candidate) => candidate.hash === hash);
      const policy = row && loadPolicy ? loadPolicy(row.sources) : undefined;
      loaded.set(hash, policy?.ok ? policy.value : undefined);
    }
    return loaded.get(hash);
  };
}
