import { auditRuns, formatViolation } from '../audit/audit.ts';
import type { AuditContext } from '../audit/run-facts.ts';
import type { Config } from '../config/config.ts';
import { createBuiltinTools } from '../integrations/tools/builtin-tools.ts';
import { openConfiguredDatabase } from '../runtime/open-database.ts';
import { createRunStore } from '../store/index.ts';

/**
 * Risk and targets of the built-in tools (nothing is called, so no token is needed); a tool the audit
 * does not know (an MCP tool) counts as destructive, as the policy counts it. Approvers named directly in
 * TANDEM_APPROVERS are known here; membership of a user group is not, and is not judged.
 */
export function auditContext(config: Readonly<Config>): AuditContext {
  const tools = new Map(createBuiltinTools({ github: undefined, slack: undefined, llm: undefined, httpAllow: [] }).map((tool) => [tool.name, tool]));
  const users = config.approvers.filter((id) => !id.startsWith('S'));
  const groups = config.approvers.length > users.length;
  return {
    riskOf: (name) => tools.get(name)?.risk,
    toolOf: (name) => tools.get(name),
    isApprover: (userId) => (config.approvers.length === 0 ? undefined : users.includes(userId) ? true : groups ? undefined : false),
  };
}

export async function auditCommand(config: Readonly<Config>, runId: string | undefined): Promise<number> {
  const database = await openConfiguredDatabase(config);
  try {
    const result = await auditRuns(createRunStore(database.db), auditContext(config), runId ? { runId } : {});
    if ('missing' in result) {
      process.stderr.write(`tandem: no run with id ${result.missing}. List them with: tandem runs\n`);
      return 1;
    }
    for (const found of result.violations) process.stdout.write(`${formatViolation(found)}\n`);
    const runs = `${result.runs} run${result.runs === 1 ? '' : 's'}`;
    process.stdout.write(result.violations.length ? `${result.violations.length} violation(s) in ${runs}\n` : `${runs} checked: no violations\n`);
    return result.violations.length ? 1 : 0;
  } finally {
    await database.close();
  }
}
