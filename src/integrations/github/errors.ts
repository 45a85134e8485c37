import type { ToolError } from '../../agent/ports/tool.ts';
import { GithubAppError } from './app-auth.ts';

interface HttpishError {
  name?: string;
  message?: string;
  status?: number;
  response?: { headers?: Record<string, string | undefined>; data?: unknown };
  cause?: unknown;
}

export interface GithubErrorContext {
  /** What was being read or written, for messages: `owner/name#12`, `owner/name`. */
  what: string;
  /** A write: a lost connection after sending means the side effect may have happened. */
  write: boolean;
  /** Messages for statuses that mean something specific to this call (merge's 405/409). */
  statusMessages?: Partial<Record<number, string>>;
}

/** Refused before anything was sent: safe to call again, nothing happened. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

function causeCode(error: HttpishError): string | undefined {
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 3 && cause && typeof cause === 'object'; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    cause = (cause as { cause?: unknown }).cause;
  }
  return undefined;
}

function isRateLimited(error: HttpishError): boolean {
  const headers = error.response?.headers ?? {};
  if (error.status === 429) return true;
  if (error.status !== 403) return false;
  return headers['x-ratelimit-remaining'] === '0' || headers['retry-after'] !== undefined || /rate limit/i.test(error.message ?? '');
}

function githubMessage(error: HttpishError): string {
  const data = error.response?.data as { message?: unknown } | undefined;
  return typeof data?.message === 'string' ? data.message : (error.message ?? 'unknown error');
}

/**
 * Turns whatever octokit threw into the executor's ToolError vocabulary. A write that may have taken
 * effect is `uncertain` and never `transient`: retrying it blindly could do it twice, so it is
 * reconciled or put to a person instead.
 */
export function toToolError(thrown: unknown, context: GithubErrorContext): ToolError {
  // Nothing was sent for the call itself, so a write is not uncertain.
  if (thrown instanceof GithubAppError) return { message: thrown.message, code: thrown.code, ...(thrown.transient ? { transient: true } : {}) };
  const error = (thrown ?? {}) as HttpishError;
  const status = error.status;
  if (error.name === 'AbortError') {
    return { message: `cancelled while calling GitHub for ${context.what}`, code: 'cancelled', ...(context.write ? { uncertain: true } : {}) };
  }
  // Not from octokit at all (octokit's errors always carry a status): a fault of ours, not GitHub's.
  if (status === undefined) {
    return { message: `${context.what}: ${error.message ?? String(thrown)}`, code: 'internal', ...(context.write ? { uncertain: true } : {}) };
  }
  // No response at all: the connection failed, was reset, or timed out.
  if (!error.response) {
    const code = causeCode(error);
    const notSent = code !== undefined && NOT_SENT_CODES.has(code);
    const uncertain = context.write && !notSent;
    return {
      message: `GitHub could not be reached for ${context.what}: ${error.message ?? 'network error'}`,
      code: 'network',
      ...(uncertain ? { uncertain } : { transient: true }),
    };
  }
  const special = context.statusMessages?.[status];
  if (special) return { message: `${special} (${context.what}): ${githubMessage(error)}`, code: `http-${status}` };
  if (isRateLimited(error)) {
    return { message: `GitHub rate limit hit for ${context.what}; try again later`, transient: true, code: 'rate-limited' };
  }
  if (status === 401)
    return { message: 'GitHub rejected the credentials (401): check GITHUB_TOKEN, or GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY', code: 'unauthorized' };
  if (status === 403) return { message: `GitHub refused access to ${context.what} (403): ${githubMessage(error)}`, code: 'forbidden' };
  if (status === 404) return { message: `not found: ${context.what}`, code: 'not-found' };
  if (status === 422) return { message: `GitHub rejected the request for ${context.what} (422): ${validationDetail(error)}`, code: 'invalid' };
  if (status >= 500) {
    // A 5xx on a write may come after GitHub acted (a gateway timing out in front of it).
    return {
      message: `GitHub failed for ${context.what} (${status}): ${githubMessage(error)}`,
      code: `http-${status}`,
      ...(context.write ? { uncertain: true } : { transient: true }),
    };
  }
  return { message: `GitHub error for ${context.what} (${status}): ${githubMessage(error)}`, code: `http-${status}` };
}

function validationDetail(error: HttpishError): string {
  const data = error.response?.data as { message?: string; errors?: { code?: string; field?: string; message?: string }[] } | undefined;
  const details = (data?.errors ?? []).map((e) => e.message ?? [e.field, e.code].filter(Boolean).join(' ')).filter(Boolean);
  return [data?.message ?? error.message, ...details].filter(Boolean).join('; ');
}
