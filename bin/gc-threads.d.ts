/** GC on the main thread alone on a machine of 1 or 2 cores (gc-threads.js); first thing in the process only. */
export declare const gcOnMainThreadOnSmallMachines: (() => void) & { wanted(): boolean };
