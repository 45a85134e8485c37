/**
 * Who may start a run: the policy's `request` action (decision 028), asked before anything is stored or
 * planned. The built-in policy lets anyone request (`anyone-requests`): approval, not asking, is what
 * guards a change. A refusal names the rule and who may, like every other refusal of the policy.
 */
import type { Result } from '../model/errors.ts';
import type { PolicyQuestion } from '../ports/policy.ts';
import { askPolicy, policyRefusal, type PolicyGate } from './policy-approval.ts';

/** `user` asking for a new run in `channel`: permitted, or the words that say why not and who may. */
export async function checkRequester(gate: PolicyGate, input: { user: string; channel: string }): Promise<Result<void>> {
  const question: Omit<PolicyQuestion, 'user' | 'groups'> = {
    action: 'request',
    // The run does not exist yet: the one asking would be its requester.
    resource: { kind: 'run', runId: 'new', requester: input.user, channel: input.channel },
    situation: { requester: input.user, channel: input.channel },
  };
  const asked = await askPolicy(gate, { ...question, user: input.user });
  if (asked.decision.permitted) return { ok: true, value: undefined };
  return { ok: false, error: policyRefusal(asked.engine, question, asked.decision.rules, 'asking me for a run') };
}
