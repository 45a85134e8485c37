import type { Surface } from '../src/agent/ports/surface.ts';
import { plainText } from '../src/agent/text/text.ts';

/** A surface that shows nothing and complains only about runs that did not succeed: benches measure the agent. */
export const quietSurface: Surface = {
  planning: async () => undefined,
  proposePlan: async () => undefined,
  askRequester: async () => undefined,
  reportProgress: async () => undefined,
  escalate: async () => undefined,
  ask: async () => undefined,
  confirmTarget: async () => undefined,
  notify: async () => undefined,
  finish: async (summary) => {
    if (summary.outcome !== 'succeeded')
      console.error(`run ${summary.run.id} ended ${summary.outcome}: ${summary.reason === null ? '' : plainText(summary.reason)}`);
  },
};
