/** The surface is best-effort from the agent's view: a failing Slack call is logged and the run goes on. */
import type { LogPort } from '../ports/logger.ts';
import type { Surface } from '../ports/surface.ts';

export function safeSurface(surface: Surface, logger: LogPort): Surface {
  const wrap =
    <A extends unknown[]>(name: keyof Surface, call: (...args: A) => Promise<void>) =>
    async (...args: A): Promise<void> => {
      try {
        await call(...args);
      } catch (error) {
        logger.warn({ err: error, call: name }, 'surface call failed');
      }
    };
  return {
    planning: wrap('planning', (run) => surface.planning(run)),
    proposePlan: wrap('proposePlan', (proposal) => surface.proposePlan(proposal)),
    askRequester: wrap('askRequester', (run, questions, asked, delivery) => surface.askRequester(run, questions, asked, delivery)),
    reportProgress: wrap('reportProgress', (run, board) => surface.reportProgress(run, board)),
    escalate: wrap('escalate', (run, escalation, offer, delivery) => surface.escalate(run, escalation, offer, delivery)),
    ask: wrap('ask', (run, stepId, question, delivery, asked) => surface.ask(run, stepId, question, delivery, asked)),
    confirmTarget: wrap('confirmTarget', (run, confirmation, delivery, addressee) => surface.confirmTarget(run, confirmation, delivery, addressee)),
    notify: wrap('notify', (run, text) => surface.notify(run, text)),
    ...(surface.approvalProgress
      ? { approvalProgress: wrap('approvalProgress', (run, version, lines) => surface.approvalProgress!(run, version, lines)) }
      : {}),
    ...(surface.escalationsClosed
      ? { escalationsClosed: wrap('escalationsClosed', (run, closed, closedBy) => surface.escalationsClosed!(run, closed, closedBy)) }
      : {}),
    ...(surface.confirmExpired ? { confirmExpired: wrap('confirmExpired', (run, confirmation, why) => surface.confirmExpired!(run, confirmation, why)) } : {}),
    ...(surface.escalationExpired
      ? { escalationExpired: wrap('escalationExpired', (run, escalation, why) => surface.escalationExpired!(run, escalation, why)) }
      : {}),
    ...(surface.plannerUnavailable ? { plannerUnavailable: wrap('plannerUnavailable', (run, reason) => surface.plannerUnavailable!(run, reason)) } : {}),
    finish: wrap('finish', (summary, delivery) => surface.finish(summary, delivery)),
    // A link that cannot be had is no reason to stop a write: the attribution line names the thread instead.
    threadLink: (run) => (surface.threadLink ? surface.threadLink(run).catch(() => undefined) : Promise.resolve(undefined)),
  };
}
