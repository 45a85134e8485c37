import { HTTPModuleFunctions } from '@slack/bolt';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Logger } from '../../observability/logger.ts';
import { describeError } from '../surface/replies.ts';
import { handOn } from './signed-request.ts';

/** Bolt parses a form body's fields; any other body it parses as JSON (so does this). */
const FORM = 'application/x-www-form-urlencoded';

/** The part of the inbox receiver the ingress answers through (InboxReceiver). */
export interface AnsweringInbox {
  /** The request's inbox key when its ack carries nothing and the ingress may answer it once it is stored. */
  answerableKey(body: Record<string, unknown>): string | undefined;
  /** Stores the request, answers it (200, or 500 when it could not be stored), then hands it to the listeners. */
  receiveAnswered(key: string, body: Record<string, unknown>, retry: Retry, answer: (status: 200 | 500) => void): Promise<void>;
}

export interface Retry {
  retryNum?: number;
  retryReason?: string;
}

/**
 * A checked click or Events API event, answered by the ingress itself: parsed once, stored in the inbox,
 * answered 200, and only then handed to Bolt's app for its listeners. Through Bolt's `HTTPReceiver` each
 * such ack also waited for a second URL parse, a 3 s timer and an ack object (a few µs; the parse itself
 * stays, here, as the inbox key needs it: decision 030, session 18). Anything else (a command, a modal submission, `url_verification`, `ssl_check`,
 * `function_executed`, a body that does not parse) goes on to Bolt's receiver as before: its ack carries
 * content, or Bolt answers it (400 for a body that does not parse).
 */
export function ingressAck(bolt: RequestListener, inbox: AnsweringInbox, logger: Logger): (req: IncomingMessage, res: ServerResponse, body: Buffer) => void {
  return (req, res, body) => {
    const parsed = req.headers['content-type'] === FORM ? undefined : parsedObject(body);
    const key = parsed && inbox.answerableKey(parsed);
    if (!parsed || !key) return handOn(bolt, req, res, body);
    const retry = {
      retryNum: HTTPModuleFunctions.extractRetryNumFromHTTPRequest(req),
      retryReason: HTTPModuleFunctions.extractRetryReasonFromHTTPRequest(req),
    };
    inbox.receiveAnswered(key, parsed, retry, answerOnce(res)).catch((error: unknown) => {
      // The request was answered; its listeners' own errors are answered by the app's error handler.
      logger.error({ err: describeError(error), inboxKey: key }, 'a Slack request failed after its ack');
    });
  };
}

function parsedObject(body: Buffer): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Answers once, with no body (Slack reads none from these acks). The response is let go once answered:
 * the request's work after its ack waits for the rest of a burst, and what it holds meanwhile is copied by
 * every young-generation collection in the burst (decision 030).
 */
function answerOnce(res: ServerResponse): (status: 200 | 500) => void {
  let open: ServerResponse | undefined = res;
  return (status) => {
    const response = open;
    open = undefined;
    if (!response || response.headersSent) return;
    response.writeHead(status);
    response.end();
  };
}
