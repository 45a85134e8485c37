import type * as Anthropic from '@anthropic-ai/sdk';
import type * as OpenAi from 'openai';
import { LlmError, type LlmErrorKind } from '../../agent/model/errors.ts';
import type { Provider } from '../../config/config.ts';

export interface FailureContext {
  provider: Provider;
  model: string;
  /** How a person knows the service: "OpenAI", "the OpenAI-compatible server at localhost:11434". */
  service: string;
  timeoutMs: number;
  maxRetries: number;
  /**
   * The error classes of the SDK that made the call. Passed in by the model module rather than imported here: this file
   * importing both SDKs loaded Anthropic's (about 0.2 s of CPU) into every start configured for OpenAI, and the reverse.
   */
  errors: SdkErrors;
}

type ApiError = OpenAi.APIError | Anthropic.APIError;

/** What `toLlmError` tells apart, as both SDKs export it. */
export interface SdkErrors {
  APIError: abstract new (...args: never[]) => ApiError;
  APIConnectionError: abstract new (...args: never[]) => Error;
  APIConnectionTimeoutError: abstract new (...args: never[]) => Error;
}

/** Turns whatever an SDK threw (after its own retries) into an LlmError a person can read. */
export function toLlmError(error: unknown, where: FailureContext): LlmError {
  if (error instanceof LlmError) return error;
  const details = { provider: where.provider, model: where.model };
  const who = `${where.service} (model ${where.model})`;
  const attempts = where.maxRetries > 0 ? ` in ${where.maxRetries + 1} attempts` : '';

  const sdk = where.errors;
  if (error instanceof sdk.APIConnectionTimeoutError) {
    return new LlmError('timeout', `${who} did not answer within ${seconds(where.timeoutMs)}${attempts}.`, details);
  }
  if (error instanceof sdk.APIConnectionError) {
    return new LlmError('unavailable', `Could not reach ${who}${attempts}: ${connectionCause(error)}.`, details);
  }
  if (error instanceof sdk.APIError && typeof error.status === 'number') {
    return fromStatus(error, error.status, who, attempts, details);
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new LlmError('unavailable', `${who} sent an answer that could not be read (${truncate(reason)}).`, details);
}

function fromStatus(error: ApiError, status: number, who: string, attempts: string, details: { provider: Provider; model: string }): LlmError {
  const said = serverMessage(error);
  const withStatus = { ...details, status };
  const kind = (k: LlmErrorKind, message: string) => new LlmError(k, message, withStatus);
  if (status === 429) {
    const retryAfter = error.headers?.get('retry-after');
    const wait = retryAfter ? ` It asked to wait ${retryAfter} s.` : '';
    return kind('rate-limited', `${who} is rate-limiting us (429)${attempts}.${wait}${said}`);
  }
  if (status === 401 || status === 403) {
    return kind('not-configured', `${who} rejected the API key (${status}); check the key in the configuration.${said}`);
  }
  if (status === 404) {
    return kind('not-configured', `${who} answered 404; check the model name and the base URL.${said}`);
  }
  if (status === 408) return kind('timeout', `${who} timed out the request (408)${attempts}.${said}`);
  if (status >= 500) return kind('unavailable', `${who} failed with ${status}${attempts}.${said}`);
  return kind('unavailable', `${who} rejected the request (${status}).${said}`);
}

/** The vendor's own error text: OpenAI nests it at error.message, Anthropic at error.error.message. */
function serverMessage(error: ApiError): string {
  const body = error.error as { message?: unknown; error?: { message?: unknown } } | undefined;
  const text = typeof body?.message === 'string' ? body.message : typeof body?.error?.message === 'string' ? body.error.message : '';
  return text ? ` It said: ${truncate(text)}` : '';
}

function connectionCause(error: Error): string {
  // fetch wraps the socket error: TypeError('fetch failed', { cause: Error & { code: 'ECONNREFUSED' } }).
  let innermost: Error = error;
  for (let cause: unknown = error.cause; cause instanceof Error; cause = cause.cause) {
    const code = (cause as Error & { code?: unknown }).code;
    if (typeof code === 'string') return code === 'ECONNREFUSED' ? 'connection refused' : code;
    innermost = cause;
  }
  return innermost.message;
}

function seconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

function truncate(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
