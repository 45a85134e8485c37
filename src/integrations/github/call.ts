import type { ReconcileResult, ToolContext, ToolResult } from '../../agent/ports/tool.ts';
import type { Octokit } from './client.ts';
import { toToolError, type GithubErrorContext } from './errors.ts';

/** One GitHub request should never hold a step longer than this; the executor has its own step timeout too. */
export const GITHUB_REQUEST_TIMEOUT_MS = 30_000;

export const GITHUB_NOT_CONFIGURED = 'GITHUB_TOKEN is not configured';

/** Per-request options: the step's abort signal plus a timeout; writes are never retried by the plugin. */
export interface RequestOptions {
  signal: AbortSignal;
  retries?: number;
}

export function requestOptions(ctx: Pick<ToolContext, 'signal'>, write: boolean): RequestOptions {
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(GITHUB_REQUEST_TIMEOUT_MS)]);
  return write ? { signal, retries: 0 } : { signal };
}

/**
 * Runs a tool body against GitHub and maps anything thrown to a ToolError, so each tool file only
 * says what it asks and what it returns.
 */
export async function runGithub(
  github: Octokit | undefined,
  context: GithubErrorContext,
  body: (octokit: Octokit) => Promise<ToolResult>,
): Promise<ToolResult> {
  if (!github) return { status: 'error', error: { message: GITHUB_NOT_CONFIGURED, code: 'not-configured' } };
  try {
    return await body(github);
  } catch (error) {
    return { status: 'error', error: toToolError(error, context) };
  }
}

/** reconcile() bodies: any failure to look means we do not know, never "not done". */
export async function reconcileGithub(
  github: Octokit | undefined,
  what: string,
  body: (octokit: Octokit) => Promise<ReconcileResult>,
): Promise<ReconcileResult> {
  if (!github) return { status: 'unknown', reason: GITHUB_NOT_CONFIGURED };
  try {
    return await body(github);
  } catch (error) {
    return { status: 'unknown', reason: `could not check ${what} on GitHub: ${toToolError(error, { what, write: false }).message}` };
  }
}
