/**
 * The built-in policy (decision 028) for tests that build an agent or the Slack app directly: the approver
 * list and settings they used to pass, compiled as the product compiles them. Each policy made here is kept
 * by its hash, so `tandem audit` in a test can judge the decisions made under it (the product keeps the
 * texts in the store).
 */
import type { PolicyGate } from '../../src/agent/decisions/policy-approval.ts';
import type { GroupDirectory, PolicyEngine } from '../../src/agent/ports/policy.ts';
import { loadPolicy } from '../../src/policy/cedar-engine.ts';
import { settingsGate } from '../../src/policy/policy-in-force.ts';

/** Nobody is in any group: enough where the approvers are user ids or nobody. */
export const NO_GROUPS: GroupDirectory = { groupsOf: async () => [] };

const made = new Map<string, PolicyEngine>();

export function approversGate(
  approvers: readonly string[] = [],
  options: { autoRunReadOnly?: boolean; repos?: readonly string[] | undefined; groups?: GroupDirectory } = {},
): PolicyGate {
  const gate = settingsGate({ approvers, autoRunReadOnly: options.autoRunReadOnly ?? false, repos: options.repos }, options.groups ?? NO_GROUPS);
  made.set(gate.current().hash, gate.current());
  return gate;
}

/** A built-in policy some test made, by its hash (what the audit's `policyOf` reads from the store in the product). */
export function policyMadeInTests(hash: string): PolicyEngine | undefined {
  return made.get(hash);
}

/** A TANDEM_POLICY gate from Cedar text (no groups), kept by its hash like the built-in ones. */
export function cedarGate(text: string): PolicyGate {
  const loaded = loadPolicy([{ file: 'test.cedar', text }]);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
  made.set(loaded.value.hash, loaded.value);
  return { current: () => loaded.value, groups: NO_GROUPS };
}
