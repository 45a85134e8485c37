/**
 * TANDEM_POLICY at start-up, on SIGHUP and when its file changes (decision 028). Start-up with an invalid policy stops with one
 * line (file:line:column); a reload that fails validation keeps the policy in force and logs one line.
 */
import { watch, type FSWatcher } from 'node:fs';
import type { Result } from '../../agent/model/errors.ts';
import { askPolicy, policyRefusal, type PolicyGate } from '../../agent/decisions/policy-approval.ts';
import type { GroupDirectory, PolicyEngine } from '../../agent/ports/policy.ts';
import { ConfigError } from '../../config/config-error.ts';
import type { Config } from '../../config/config.ts';
import type { Logger } from '../../observability/logger.ts';
import { createPolicyHolder, loadPolicyInForce, problemLine } from '../../policy/policy-in-force.ts';
import { policyTextsKeeper } from './policy-texts-keeper.ts';

/** The policy every decision asks: TANDEM_POLICY's files (reloaded on SIGHUP and on change), or unset the built-in policy from the settings. */
export function startPolicy(
  config: Readonly<Config>,
  groups: GroupDirectory,
  logger: Logger,
  /** Keeps the texts under their hash, so the audit can judge decisions by the policy then in force. */
  keep: (policy: PolicyEngine) => Promise<void> = async () => undefined,
  /** The first wait before a failed save of the texts is tried again (doubling up to a minute). */
  keepRetryMs = 1_000,
): { gate: PolicyGate; stop: () => Promise<void> } {
  const path = config.policy.path;
  const load = () => loadPolicyInForce({ path, approvers: config.approvers, autoRunReadOnly: config.autoRunReadOnly, repos: config.github.repos });
  const first = load();
  if (!first.ok) throw new ConfigError(path === undefined ? 'TANDEM_APPROVERS' : 'TANDEM_POLICY', problemLine(first.error));
  const holder = createPolicyHolder(first.value, load);
  const keeper = policyTextsKeeper(keep, logger, keepRetryMs);
  keeper.keep(first.value);
  // The built-in policy changes only with the settings, which a restart reads.
  if (path === undefined) return { gate: { current: holder.current, groups }, stop: keeper.stop };
  logger.info({ policy: path, hash: first.value.hash.slice(0, 12), rules: first.value.rules.length }, 'policy loaded');
  const onHangup = () => {
    // Runs from a signal or a timer, where a throw would end the process: whatever goes wrong keeps the old policy.
    try {
      const reloaded = holder.reload();
      if (reloaded.ok) keeper.keep(reloaded.value);
      if (reloaded.ok) logger.info({ policy: path, hash: reloaded.value.hash.slice(0, 12), rules: reloaded.value.rules.length }, 'policy reloaded');
      else logger.error(`policy not reloaded, the previous one stays in force: ${reloaded.error}`);
    } catch (error) {
      logger.error(`policy not reloaded, the previous one stays in force: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  process.on('SIGHUP', onHangup);
  // A change of the file (or of a file in the folder) reloads too, once the writes settle.
  let settle: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(path, { persistent: false }, () => {
      clearTimeout(settle);
      settle = setTimeout(onHangup, 200);
    });
    watcher.on('error', () => undefined);
  } catch {
    logger.warn({ policy: path }, 'cannot watch the policy for changes; reload it with SIGHUP');
  }
  return {
    gate: { current: holder.current, groups },
    stop: () => {
      process.off('SIGHUP', onHangup);
      clearTimeout(settle);
      watcher?.close();
      return keeper.stop();
    },
  };
}

/** Who may create a schedule: the policy's `schedule` action (the built-in policy: an approver, anyone when the approver list is empty). */
export function scheduleCreation(gate: PolicyGate) {
  return async (input: { createdBy: string; channel: string; intervalSeconds: number }): Promise<Result<void>> => {
    const question = {
      action: 'schedule' as const,
      resource: { kind: 'schedule' as const, scheduleId: 'new', channel: input.channel, createdBy: input.createdBy, intervalSeconds: input.intervalSeconds },
      situation: { requester: input.createdBy, channel: input.channel },
    };
    const asked = await askPolicy(gate, { ...question, user: input.createdBy });
    if (asked.decision.permitted) return { ok: true, value: undefined };
    if (asked.engine.fromSettings) return { ok: false, error: 'only approvers (TANDEM_APPROVERS) may create a schedule: each one starts runs on its own' };
    return { ok: false, error: policyRefusal(asked.engine, question, asked.decision.rules, 'creating a schedule') };
  };
}
