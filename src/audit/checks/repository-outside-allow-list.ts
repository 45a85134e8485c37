/**
 * A GitHub request Tandem recorded on a repository outside TANDEM_REPOS: a step's executed args (what was
 * sent, references filled) or a call an `agent_task` model made, judged literally as the run-time check
 * judges them — a search whose query could reach anything off the list counts. The list is the one
 * configured when the audit runs (the list in force then is not stored; see AuditContext.repositories).
 */
import { repositoryRefusal } from '../../agent/model/repository-allow-list.ts';
import { terminalWords } from '../../config/setting-variables.ts';
import { type AuditCheck, type Violation, violation } from '../run-facts.ts';

export const repositoryOutsideAllowList: AuditCheck = {
  name: 'repository-outside-allow-list',
  check(facts, ctx) {
    const allowList = ctx.repositories;
    if (!allowList) return [];
    const toolOfStep = new Map(facts.steps.map((step) => [`${step.planVersion}/${step.stepId}`, step.tool]));
    const found: Violation[] = [];
    const judge = (where: { planVersion: number; stepId: string }, tool: string, args: unknown, what: string) => {
      if (!args || typeof args !== 'object') return;
      const refusal = repositoryRefusal(allowList, ctx.toolOf(tool), args as Record<string, unknown>, 'filled');
      if (refusal) found.push(violation(this.name, facts.run, where, `${what} ${tool} ${refusal.at}: ${terminalWords(refusal.reason)}`));
    };
    for (const attempt of facts.attempts) {
      const tool = toolOfStep.get(`${attempt.planVersion}/${attempt.stepId}`);
      if (tool) judge(attempt, tool, attempt.executedArgs, `${attempt.stepId} of v${attempt.planVersion} (attempt ${attempt.attempt}) sent`);
    }
    for (const call of facts.innerCalls.filter((inner) => inner.sent)) {
      judge(call, call.tool, call.args, `${call.stepId} of v${call.planVersion} (attempt ${call.attempt}) called`);
    }
    return found;
  },
};
