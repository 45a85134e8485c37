export interface CommandOptions {
  limit: string | undefined;
  local: boolean;
  /** start: the demo (scripted model, GitHub sandbox, local workspace). */
  demo?: boolean;
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
  /** policy explain/test: the question's parts, and a policy other than TANDEM_POLICY. */
  policy?: string | undefined;
  user?: string | undefined;
  action?: string | undefined;
  tool?: string | undefined;
  repo?: string | undefined;
  target?: string | undefined;
  risk?: string | undefined;
  requester?: string | undefined;
  channel?: string | undefined;
  group?: string[] | undefined;
}
