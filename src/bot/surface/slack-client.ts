import { webApi } from '@slack/bolt';
import type { Config } from '../../config/config.ts';
import type { Logger } from '../../observability/logger.ts';
import { withMessageNote } from './message-note.ts';
import { slackLogger } from './slack-logger.ts';

export type SlackClient = InstanceType<typeof webApi.WebClient>;

/** Web API methods that make something new each time they are called: sent twice, they post twice. */
// Not chat.postEphemeral: it cannot be looked for afterwards, and a second copy only its reader sees is better than none.
const POSTS = new Set(['chat.postMessage', 'chat.scheduleMessage', 'chat.meMessage', 'files.completeUploadExternal']);

/** Connection errors raised before the request left: Slack cannot have acted on it, so sending it again is safe. */
const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']);

/**
 * A post whose request reached Slack (or may have) but whose answer never came back: a timeout, a
 * connection reset. Slack may have posted it, so it is not sent again blindly; whoever posted it
 * looks for it first (see `findOwedInThread`).
 */
export class PostOutcomeUnknownError extends Error {
  constructor(
    readonly method: string,
    options: { cause: unknown },
  ) {
    super(`${method}: no answer from Slack, so it may or may not have posted (${describe(options.cause)})`, options);
    this.name = 'PostOutcomeUnknownError';
  }
}

/** The `error` Slack's Web API answered with (`missing_scope`, `invalid_blocks`…), when it answered. */
export function slackErrorCode(error: unknown): string | undefined {
  return (error as { data?: { error?: string } } | undefined)?.data?.error;
}

/**
 * Whether a Web API call failed because Slack gave no answer in time (the client's timeout, after its
 * retries), rather than answering with an error: the failure an operator sees as Slack hanging.
 */
export function isSlackTimeout(error: unknown): boolean {
  let current: unknown = error;
  // The client wraps the fetch's error (`original`); a post's wrapper keeps it as its `cause`.
  for (let depth = 0; current instanceof Object && depth < 4; depth += 1) {
    if ((current as { name?: unknown }).name === 'TimeoutError') return true;
    current = (current as { original?: unknown }).original ?? (current as { cause?: unknown }).cause;
  }
  return false;
}

/** Whether a Web API call failed as a post that Slack may have made (the client did not send it again). */
export function isPostOutcomeUnknown(error: unknown): boolean {
  if (error instanceof PostOutcomeUnknownError) return true;
  return (error as { original?: unknown } | undefined)?.original instanceof PostOutcomeUnknownError;
}

/**
 * Web API options for a chat bot: a person is waiting, so a call gives up after ~10 s and a few
 * retries rather than the client's default 10 retries over half an hour. 429s wait out Retry-After
 * (Slack did nothing, so they are retried for every method). A post whose answer was lost (a
 * timeout, a reset connection) is not retried: it may be in the thread already.
 */
export function slackClientOptions(config: Pick<Config, 'slack'>, logger: Logger) {
  const retryConfig: webApi.RetryOptions & { onFailedAttempt: (error: unknown) => void } = {
    retries: 4,
    factor: 2,
    minTimeout: 500,
    maxTimeout: 5_000,
    randomize: true,
    // p-retry (inside the client) stops at once with what this throws.
    onFailedAttempt: (error) => {
      if (isPostOutcomeUnknown(error)) throw error;
    },
  };
  return {
    slackApiUrl: config.slack.apiUrl,
    timeout: 10_000,
    retryConfig,
    fetch: postsOnce(config.slack.messageNote ? withMessageNote(config.slack.messageNote) : undefined),
    logger: slackLogger(logger, 'slack-web-api'),
  };
}

/** `onError`: told of every Web API call that failed after its retries (the /metrics error count); the error still reaches the caller. */
export function createSlackClient(
  config: Pick<Config, 'slack'>,
  logger: Logger,
  overrides: { retries?: number; timeoutMs?: number; retryBackoffMs?: { min: number; max: number }; onError?: (error: unknown) => void } = {},
): SlackClient {
  const options = slackClientOptions(config, logger);
  if (overrides.retries !== undefined) options.retryConfig = { ...options.retryConfig, retries: overrides.retries };
  if (overrides.retryBackoffMs)
    options.retryConfig = { ...options.retryConfig, minTimeout: overrides.retryBackoffMs.min, maxTimeout: overrides.retryBackoffMs.max };
  if (overrides.timeoutMs !== undefined) options.timeout = overrides.timeoutMs;
  const { onError } = overrides;
  if (!onError) return new webApi.WebClient(config.slack.botToken, options);
  // Every method (client.chat.postMessage…) is bound to apiCall when the client is built, so a subclass sees them all.
  return new (class extends webApi.WebClient {
    override async apiCall(...args: Parameters<SlackClient['apiCall']>) {
      try {
        return await super.apiCall(...args);
      } catch (error) {
        onError(error);
        throw error;
      }
    }
  })(config.slack.botToken, options);
}

/** The client's fetch, marking a post that may have reached Slack (and so must not be retried) as such. */
function postsOnce(inner: webApi.FetchFunction = globalThis.fetch): webApi.FetchFunction {
  return async (url, init) => {
    const method = methodOf(url);
    if (!method || !POSTS.has(method)) return inner(url, init);
    let response: Awaited<ReturnType<webApi.FetchFunction>>;
    try {
      response = await inner(url, init);
    } catch (error) {
      if (NEVER_SENT.has(errorCode(error) ?? '')) throw error;
      throw new PostOutcomeUnknownError(method, { cause: error });
    }
    // A 5xx is left to the client's retries, as before: most come from in front of Slack's app, before it acted.
    return response;
  };
}

function methodOf(url: string | URL): string | undefined {
  try {
    return new URL(url).pathname.split('/').pop() || undefined;
  } catch {
    return undefined;
  }
}

/** The system error code of a failed fetch (undici puts it on the cause). */
function errorCode(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  const code = cause?.code ?? (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = errorCode(error);
  return code ? `${error.name}: ${error.message} (${code})` : `${error.name}: ${error.message}`;
}
