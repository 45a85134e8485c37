/**
 * One call of a tool, as the executor needs it: bounded by the step timeout and the run's abort
 * signal (even if the tool ignores its signal), retried with backoff only for transient errors,
 * and a throw turned into an error value.
 */
import { sleep } from '../../sleep.ts';
import type { AnyTool, ToolContext, ToolError, ToolResult } from '../../ports/tool.ts';
import { storableValue } from '../../text/storable-text.ts';
import { plainText, setting, words } from '../../text/text.ts';

export interface CallOptions {
  timeoutMs: number;
  runSignal: AbortSignal;
  retries: number;
  baseDelayMs: number;
  onRetry(error: ToolError, attempt: number, delayMs: number): void;
}

export type CallOutcome = ToolResult | { status: 'cancelled'; error: ToolError };

export async function callTool(tool: AnyTool, args: unknown, ctx: Omit<ToolContext, 'signal'>, options: CallOptions): Promise<CallOutcome> {
  for (let retry = 0; ; retry++) {
    const result = storableValue(await callOnce(tool, args, ctx, options));
    if (result.status !== 'error' || !result.error.transient || retry >= options.retries) return result;
    const delayMs = options.baseDelayMs * 2 ** retry;
    options.onRetry(result.error, retry + 1, delayMs);
    if (!(await sleep(delayMs, options.runSignal))) return { status: 'cancelled', error: { message: 'cancelled while waiting to retry' } };
  }
}

async function callOnce(tool: AnyTool, args: unknown, ctx: Omit<ToolContext, 'signal'>, options: CallOptions): Promise<CallOutcome> {
  if (options.runSignal.aborted) return { status: 'cancelled', error: { message: 'cancelled before the call' } };
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new Error('step timeout')), options.timeoutMs);
  timer.unref?.();
  const signal = AbortSignal.any([options.runSignal, timeout.signal]);
  const mayHaveHappened = tool.risk !== 'read';
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<CallOutcome>((resolve) => {
    onAbort = () =>
      resolve(
        timeout.signal.aborted
          ? {
              status: 'error',
              error: {
                message: plainText(words`timed out after ${Math.round(options.timeoutMs / 1000)}s (${setting('step-timeout')})`),
                uncertain: mayHaveHappened,
                code: 'timeout',
              },
            }
          : { status: 'cancelled', error: { message: 'cancelled while running', uncertain: mayHaveHappened } },
      );
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const running = tool.run(args, { ...ctx, signal }).catch((error: unknown): CallOutcome => ({
      status: 'error',
      // A throw is a bug in the tool, not a reported failure: for a write we cannot know what happened.
      error: { message: `${tool.name} threw: ${error instanceof Error ? error.message : String(error)}`, uncertain: mayHaveHappened },
    }));
    return await Promise.race([running, aborted]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}
