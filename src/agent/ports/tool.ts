import type { z } from 'zod';
import type { NoteLog } from './logger.ts';

/** How much harm a tool can do; the approval policy (src/agent/decisions/approval-policy.ts) maps it to who may approve. */
export type Risk = 'read' | 'write' | 'destructive';

/**
 * Who stands behind a write (TANDEM_ATTRIBUTION): the run's requester, the people (or auto-run rule)
 * who approved the version the step belongs to, that version, its content digest and the thread.
 * Data the executor adds after approval; GitHub write tools stamp it on what they write.
 */
export interface Attribution {
  requester: string;
  approvers: readonly string[];
  planVersion: number;
  /** The version's content digest (64 hex characters). */
  digest: string;
  /** A link to the run's Slack thread; null when the surface gave none. */
  threadUrl: string | null;
  /** The thread as the store names it, said when there is no link. */
  conversation: { channel: string; threadTs: string };
}

/** What a call reaches: these repositories (`owner/*` for an account), any at all, or it cannot be told and why. */
export type RepositoryReach = readonly string[] | 'any' | { unreadable: string };

/** What a tool may know about the call it serves. Everything else reaches it through its factory. */
export interface ToolContext {
  runId: string;
  stepId: string;
  planVersion: number;
  attempt: number;
  /** `tandem:<runId>/<stepId>`: written into what a write tool creates so reconcile() can find it after a crash. */
  marker: string;
  /** When this attempt started; tools that look objects up after a crash use it as a lower bound. */
  startedAt: Date;
  signal: AbortSignal;
  /** A short line for the person watching the status board ("workflow run 123: in_progress"). */
  progress(note: string): void;
  log: NoteLog;
  /** Other tools, called the way a plan step calls them; set by the step runner, absent inside such a call. */
  innerTools?: InnerTools;
  /** Set for a write or destructive step while TANDEM_ATTRIBUTION is on. */
  attribution?: Attribution;
  /** The values of the references in the tool's `fillsAsData` args, by the label their placeholder names (`input 1`). */
  filledData?: Readonly<Record<string, unknown>>;
}

/** How a tool that works through other tools (agent_task) reaches them. Only tools of risk read are ever called. */
export interface InnerTools {
  /** What a model is shown of a registered tool; undefined when no such tool exists. */
  describe(name: string): ToolCatalogueEntry | undefined;
  /**
   * Calls a read tool as a plan step is called (checked args, the step's time limit, retries, redaction,
   * the output limit) and stores the call with the step before returning. Any other tool is refused.
   */
  call(request: { tool: string; args: unknown; index: number; signal?: AbortSignal }): Promise<InnerCallResult>;
  /** Stores a call refused before it reached any tool (not listed, over the call limit). */
  refuse(request: { tool: string; args: unknown; index: number; reason: string }): Promise<void>;
  /** Model tokens the run may still spend (its token budget less what it used). */
  tokensLeft(): Promise<number>;
}

export type InnerCallResult = { ok: true; output: Record<string, unknown> } | { ok: false; error: string };

export interface ToolError {
  message: string;
  /** Retried with backoff by the executor; anything else fails the step at once. */
  transient?: boolean;
  /** The side effect may or may not have happened (e.g. a timeout after sending a write). */
  uncertain?: boolean;
  code?: string;
  url?: string;
}

export type ToolResult =
  | { status: 'ok'; output: Record<string, unknown> }
  | { status: 'error'; error: ToolError }
  /** The run waits for a person (ask_human); the answer becomes the step's output. */
  | { status: 'pause'; question: string };

export type ReconcileResult = { status: 'done'; output: Record<string, unknown> } | { status: 'not-done' } | { status: 'unknown'; reason: string };

export interface Tool<I = unknown> {
  name: string;
  description: string;
  input: z.ZodType<I>;
  /** The input's JSON Schema as its source gave it (MCP servers); the catalogue otherwise derives it from `input`. */
  inputJsonSchema?: Record<string, unknown>;
  output?: z.ZodType<Record<string, unknown>>;
  risk: Risk;
  /**
   * The args that say which object the tool acts on (repository, number, tag, ref, workflow, channel), in
   * the order a person reads them. One list serves the plan view (shown in full), the repository allow-list
   * and the Confirm of a target filled in at run time. Content args (a body, release notes) are not targets.
   */
  targets?: readonly string[];
  /**
   * Set when the output is a person's answer or a model's text rather than a system's record: a write whose
   * target is filled from it at run time waits for an approver's Confirm.
   */
  outputFrom?: 'person' | 'model';
  /**
   * The repositories (`owner/name`, or `owner/*` for a whole account) a call reaches, for a tool whose
   * targets name them other than by a `repo` arg (a search's `repo:` qualifiers); `'any'` when the call
   * is not limited to any; `{ unreadable }` when the args cannot be read well enough to tell (refused under
   * the allow-list). Given args as planned or as filled in, so it must not trust their shape.
   */
  repositories?(args: Record<string, unknown>): RepositoryReach;
  /**
   * How text filled into this tool's string args from an earlier step's output is quoted. The plan's
   * own words were shown to the approver; a filled-in value was not, so it must not become markup
   * (slack_notify escapes it, so an issue title's `<!channel>` is shown, not sent). `at` is the arg's path
   * (`body`, `labels.0`): GitHub's writes quiet @-mentions in their text args only, never in a tag or ref.
   */
  quoteFilled?(text: string, at: string): string;
  /**
   * String args a model follows as its task (a model step's `instruction`). A value filled into one would become
   * words the model obeys, so the step runner leaves a placeholder for each reference (`[input 1]`) and hands the
   * values to `run` in `ctx.filledData`, which the tool gives the model as data (CONTRACT §4, §6).
   */
  fillsAsData?: readonly string[];
  /**
   * After filling, before the call: a problem when the filled args do something the planned args (as the
   * approver read them) did not, which quoting each value cannot see (slack_notify: a value that completes a
   * `<!…>` the plan left open pings a channel). The step then fails with this code and message; nothing is sent.
   */
  refuseFilled?(planned: Record<string, unknown>, filled: I): { code: string; at: string; message: string } | undefined;
  run(args: I, ctx: ToolContext): Promise<ToolResult>;
  /** Write tools: after a crash mid-call, find out whether the side effect happened. */
  reconcile?(args: I, ctx: ToolContext): Promise<ReconcileResult>;
  /**
   * Checks of the args as a plan writes them (before references are filled) that depend on the other
   * registered tools; each problem names the arg path (`tools.1: …`). Plan validation reports them.
   */
  checkPlanArgs?(args: Record<string, unknown>, tools: { riskOf(name: string): Risk | undefined }): string[];
  /** The tool's own success test on its output, run by the evaluator before any model check. */
  check?(output: Record<string, unknown>, args: I): { ok: true } | { ok: false; reason: string };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a registry holds tools of many input types
export type AnyTool = Tool<any>;

export interface ToolCatalogueEntry {
  name: string;
  description: string;
  risk: Risk;
  inputSchema: Record<string, unknown>;
}
