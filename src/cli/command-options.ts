export interface CommandOptions {
  limit: string | undefined;
  local: boolean;
  recorded: boolean;
  /** eval: write the live model's answers to eval/recorded. */
  record: boolean;
  json: boolean;
  /** audit: only this run. */
  run: string | undefined;
  /** eval: summarise stored feedback instead of running the golden tasks. */
  feedback?: boolean;
  /** prune: runs that finished more than this many days ago. */
  olderThan?: string | undefined;
}
