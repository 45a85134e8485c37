/**
 * The policy in force: TANDEM_POLICY's files, or (unset) the built-in policy compiled from today's
 * settings. A reload (SIGHUP) swaps it atomically: a policy that fails validation leaves the old one in
 * force and is reported in one line; the next decision sees either the old policy or the new, whole.
 */
import type { Result } from '../agent/model/errors.ts';
import type { GroupDirectory, PolicyEngine, PolicyProblem } from '../agent/ports/policy.ts';
import { builtinPolicy, type BuiltinSettings } from './builtin-policy.ts';
import { loadPolicy, type LoadedPolicy } from './cedar-engine.ts';
import { readPolicySources } from './policy-files.ts';
import { formatProblem } from './source-position.ts';

export interface PolicySettings extends BuiltinSettings {
  path: string | undefined;
}

export function loadPolicyInForce(settings: PolicySettings): Result<LoadedPolicy, PolicyProblem[]> {
  if (settings.path === undefined) return settingsPolicy(settings);
  const sources = readPolicySources(settings.path);
  return sources.ok ? loadPolicy(sources.value) : sources;
}

/** The built-in policy compiled from the settings (decision 028): what every decision asks when TANDEM_POLICY is unset. */
export function settingsPolicy(settings: BuiltinSettings): Result<LoadedPolicy, PolicyProblem[]> {
  const loaded = loadPolicy([builtinPolicy(settings)]);
  return loaded.ok ? { ok: true, value: { ...loaded.value, fromSettings: true } } : loaded;
}

/** The built-in policy and who is in its groups, as the agent and the Slack listeners ask it; settings that do not compile are a bug here. */
export function settingsGate(settings: BuiltinSettings, groups: GroupDirectory): { current(): PolicyEngine; groups: GroupDirectory } {
  const loaded = settingsPolicy(settings);
  if (!loaded.ok) throw new Error(`the built-in policy does not compile: ${problemLine(loaded.error)}`);
  return { current: () => loaded.value, groups };
}

/** One line for a log or a start-up failure: the first problem, and how many more there are. */
export function problemLine(problems: readonly PolicyProblem[]): string {
  const [first] = problems;
  if (!first) return 'the policy is invalid';
  return problems.length > 1 ? `${formatProblem(first)} (and ${problems.length - 1} more: tandem policy check)` : formatProblem(first);
}

export interface PolicyHolder {
  current(): PolicyEngine;
  /** Reads the policy again; on a problem keeps the one in force and says why (one line). */
  reload(): Result<PolicyEngine, string>;
}

export function createPolicyHolder(initial: PolicyEngine, load: () => Result<PolicyEngine, PolicyProblem[]>): PolicyHolder {
  let inForce = initial;
  return {
    current: () => inForce,
    reload() {
      const next = load();
      if (!next.ok) return { ok: false, error: problemLine(next.error) };
      inForce = next.value;
      return { ok: true, value: inForce };
    },
  };
}
