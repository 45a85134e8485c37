/**
 * Why the built-in policy (compiled from the settings, decision 028) denied someone, in the terms of those
 * settings, so a refusal keeps the sentence people knew: only for being the requester (four-eyes), for a rule
 * other than the approver list (the repository allow-list), or for not being an approver at all.
 */
import type { PolicyEngine, PolicyQuestion } from '../ports/policy.ts';

export type SettingsDenial = 'requester' | 'rule' | 'not-approver';

export function settingsDenial(engine: PolicyEngine, question: PolicyQuestion): SettingsDenial {
  const asSomeoneElse = engine.decide({ ...question, situation: { ...question.situation, requester: NOT_THE_REQUESTER } });
  if (asSomeoneElse.permitted) return 'requester';
  return asSomeoneElse.rules.length > 0 ? 'rule' : 'not-approver';
}

/** A requester no Slack user id can be: the question asked as if the clicker had not asked for the run. */
const NOT_THE_REQUESTER = '\u0000not-the-requester';
