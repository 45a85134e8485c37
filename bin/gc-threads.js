// Garbage collection on the main thread alone on a machine of 1 or 2 cores (docs/decisions/030-scale-and-time.md,
// "A long soak", session 19). V8's parallel and concurrent GC hand work to helper threads and the main thread waits
// for them; with 2 cores shared by the bot, its database and whatever else runs there, a helper is often not on a
// core, and the loop waits for it. On more cores the helpers have room and keep the pauses short.
import { availableParallelism } from 'node:os';
import v8 from 'node:v8';

/**
 * Only first thing in the process, before anything is loaded (bin/tandem.js): flipped after V8 has run a concurrent
 * marking, the flag aborts the process at a later GC ("Check failed: concurrent_marking_handle_ …"). Worker threads
 * started later (PGlite's) take it from their start.
 */
export function gcOnMainThreadOnSmallMachines() {
  if (gcOnMainThreadOnSmallMachines.wanted()) v8.setFlagsFromString('--single-threaded-gc');
}

/** 1 or 2 cores: where the helpers wait for a core more than they help. */
gcOnMainThreadOnSmallMachines.wanted = () => availableParallelism() <= 2;
