/** What a person is told when their decision changed nothing, one sentence per refusal code. */
import type { DecisionRefusalCode, RunRecord } from '../ports/run-store.ts';
import type { PolicyGate } from './policy-approval.ts';
import type { Refusal } from '../model/refusal.ts';
import { person, type Text, type TextPart } from '../text/text.ts';
import { shortDigest } from '../model/plan/plan-digest.ts';

/** A store refusal as the agent returns it: the code, and the sentence the person who clicked is shown. */
export function decisionRefusal(code: DecisionRefusalCode, run: RunRecord | undefined, planVersion: number | null): Refusal<DecisionRefusalCode> {
  return { code, message: refusalMessage(code, run, planVersion) };
}

function refusalMessage(code: DecisionRefusalCode, run: RunRecord | undefined, planVersion: number | null): string {
  switch (code) {
    case 'run-missing':
      return 'That run does not exist.';
    case 'plan-changed':
      return planChangedMessage(planVersion, run?.currentPlanVersion ?? null);
    case 'not-waiting':
      return `This plan is not waiting for a decision (the run is ${run?.status ?? 'gone'}); nothing was done.`;
    case 'escalation-resolved':
      return 'Someone else resolved this escalation first; nothing was done.';
    case 'nothing-to-answer':
      return 'Nothing in this run is waiting for an answer.';
    case 'already-answered':
      return 'That message already answered a question of this run.';
  }
}

/**
 * An approval binds to the content the clicked message showed (CONTRACT §5): a button drawn for other content than
 * the version's `digest` now is a stale one, and approves nothing. `shown` undefined: a button drawn before it
 * carried a digest.
 */
export function shownDigestRefusal(shown: string | undefined, digest: string, version: number): Refusal<'plan-changed'> | undefined {
  if (shown === undefined || digest.startsWith(shown.toLowerCase())) return undefined;
  return {
    code: 'plan-changed',
    message: `The plan changed since that message was posted (it showed digest ${shortDigest(shown)}, v${version} is now ${shortDigest(digest)}); nothing was approved. Check the plan again before approving.`,
  };
}

export function planChangedMessage(clicked: number | null, current: number | null): string {
  const now = current === null ? 'a new version' : `v${current}`;
  return `The plan changed to ${now} while you decided; look again. Your click on v${clicked ?? '?'} ran nothing.`;
}

/** Approvers named in a refusal; a longer list is said as "approvers". */
const MAX_NAMED = 5;

/**
 * A refusal the settings made, with "approvers" / "an approver" replaced by the people (and groups) on
 * the approver list when there are few enough to name: "Only <@U1> or <@U2> may approve a plan." The
 * setting's own name goes with it. Words that name no approver, and a list too long to name, are kept.
 */
export function namingApprovers(text: Text, approvers: readonly string[]): Text {
  if (approvers.length === 0 || approvers.length > MAX_NAMED) return text;
  const names = approverNames(approvers);
  const parts: readonly TextPart[] = typeof text === 'string' ? [text] : text;
  const out: TextPart[] = [];
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index]!;
    const next = parts[index + 1];
    const after = parts[index + 2];
    // "approvers (<setting>)" or "an approver (<setting>)": the names, without the aside.
    if (
      typeof part === 'string' &&
      /\b(?:an approver|approvers) \($/.test(part) &&
      isApproversSetting(next) &&
      typeof after === 'string' &&
      after.startsWith(')')
    ) {
      out.push(part.replace(/\b(?:an approver|approvers) \($/, ''), ...names, after.slice(1));
      index += 2;
      continue;
    }
    if (typeof part !== 'string') {
      out.push(part);
      continue;
    }
    // "Only an approver", "or an approver", "ask an approver": who may, by name ("an approver other than…" stays).
    for (const piece of part.split(/\b((?:Only|or|ask) an approver)\b/)) {
      if (/^(?:Only|or|ask) an approver$/.test(piece)) out.push(piece.replace(/an approver$/, ''), ...names);
      else if (piece) out.push(piece);
    }
  }
  // "…, and you are not one." reads as "one of them" once they are named.
  return out.map((part) =>
    typeof part === 'string' ? part.replace(/\byou are not one\.$|\byou are not one\. /g, (m) => m.replace('one', 'one of them')) : part,
  );
}

const isApproversSetting = (part: TextPart | undefined) => typeof part === 'object' && 'setting' in part && part.setting === 'approvers';

/** "<@U1>", "<@U1> or <@U2>", "<@U1>, <@U2> or <!subteam^S1>". */
function approverNames(approvers: readonly string[]): TextPart[] {
  return approvers.flatMap((id, index) => [...(index === 0 ? [] : [index === approvers.length - 1 ? ' or ' : ', ']), person(id)]);
}

type Said = { message: Text };

/**
 * What a decision answered, with every refusal's words naming the approvers (namingApprovers): a
 * refused result, a refused follow-up, or an edit's problems, when the built-in policy (the settings)
 * decided. Under a policy file its own words stand (they name the rule and who may).
 */
export function withApproversNamed<R>(deciders: { policy: PolicyGate; approvers: readonly string[] }, result: R): R {
  const listed = deciders.policy.current().fromSettings ? deciders.approvers : [];
  if (listed.length === 0 || typeof result !== 'object' || result === null) return result;
  const name = <S extends Said>(said: S): S => ({ ...said, message: namingApprovers(said.message, listed) });
  const answer = result as { ok?: boolean; error?: Said | Said[]; refused?: Said };
  if (answer.refused) return { ...answer, refused: name(answer.refused) } as R;
  if (answer.ok === false && answer.error) return { ...answer, error: Array.isArray(answer.error) ? answer.error.map(name) : name(answer.error) } as R;
  return result;
}
