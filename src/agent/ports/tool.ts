import type { z } from 'zod';

/** How much harm a tool can do; the approval policy (src/agent/approval-policy.ts) maps it to who may approve. */
export type Risk = 'read' | 'write' | 'destructive';

export interface ToolLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

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
  log: ToolLogger;
}

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

export type ReconcileResult =
  | { status: 'done'; output: Record<string, unknown> }
  | { status: 'not-done' }
  | { status: 'unknown'; reason: string };

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
  run(args: I, ctx: ToolContext): Promise<ToolResult>;
  /** Write tools: after a crash mid-call, find out whether the side effect happened. */
  reconcile?(args: I, ctx: ToolContext): Promise<ReconcileResult>;
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
