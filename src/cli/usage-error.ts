/** A command line the CLI cannot act on: runCommand prints its message and exits 2. */
export class UsageError extends Error {}
