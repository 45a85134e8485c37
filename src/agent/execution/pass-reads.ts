/**
 * The reads every driver makes before it starts anything (its run's opening and its clock's facts, then its
 * token total), shared by the drivers that ask in the same turn of the event loop: after a restart a thousand drivers start
 * together, and each reading on its own cost six statements a run before its first step (on PGlite's one
 * connection, one after another). Asked together they are a few statements for all of them. A driver
 * asking alone waits one timer tick for its companions.
 */
import type { RunClockFacts } from '../model/budgets.ts';
import type { OpeningsPort, PassOpening } from '../ports/openings.ts';

/** Runs per statement: a restart's thousand runs go in two. */
const MOST_PER_READ = 500;

export interface PassReads {
  /** The run's opening (openings.ts); undefined when the run does not exist. */
  opening(runId: string): Promise<PassOpening | undefined>;
  /** The run's model tokens so far. */
  tokens(runId: string): Promise<number>;
  /** When the run waited for people and when its steps ran (budgets.ts `runTimeSpentMs`); none for a run that never waited. */
  clockFacts(runId: string): Promise<RunClockFacts>;
}

/** One set of shared reads per store: the drivers of one agent share its store. */
const shared = new WeakMap<OpeningsPort, PassReads>();

export function passReads(store: OpeningsPort): PassReads {
  let reads = shared.get(store);
  if (!reads) {
    const openings = batched((runIds) => store.passOpenings(runIds).then((found) => new Map(found.map((opening) => [opening.run.id, opening]))));
    const tokens = batched((runIds) => store.tokensOf(runIds));
    const clockFacts = batched((runIds) => store.clockFactsOf(runIds));
    reads = {
      opening: openings,
      tokens: async (runId) => (await tokens(runId)) ?? 0,
      clockFacts: async (runId) => (await clockFacts(runId)) ?? { waits: [], working: [] },
    };
    shared.set(store, reads);
  }
  return reads;
}

/** Calls in one turn become one `readMany` per MOST_PER_READ distinct keys; each caller gets its key's value. */
function batched<V>(readMany: (keys: string[]) => Promise<Map<string, V>>): (key: string) => Promise<V | undefined> {
  let waiting = new Map<string, { resolve: (value: V | undefined) => void; reject: (error: unknown) => void }[]>();
  const flush = () => {
    const taken = waiting;
    waiting = new Map();
    const keys = [...taken.keys()];
    for (let start = 0; start < keys.length; start += MOST_PER_READ) {
      const part = keys.slice(start, start + MOST_PER_READ);
      readMany(part).then(
        (values) => part.forEach((key) => taken.get(key)!.forEach((caller) => caller.resolve(values.get(key)))),
        (error: unknown) => part.forEach((key) => taken.get(key)!.forEach((caller) => caller.reject(error))),
      );
    }
  };
  return (key) =>
    new Promise<V | undefined>((resolve, reject) => {
      // A timer, not a microtask: the drivers a resume starts reach here across many microtasks of one turn.
      if (waiting.size === 0) setTimeout(flush, 0);
      const callers = waiting.get(key);
      if (callers) callers.push({ resolve, reject });
      else waiting.set(key, [{ resolve, reject }]);
    });
}
