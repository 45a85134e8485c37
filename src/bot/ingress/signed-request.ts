import { isUtf8 } from 'node:buffer';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { parse as parseForm } from 'node:querystring';
import type { Logger } from '../../observability/logger.ts';

/** Slack signs each request with a timestamp; one further than this from now is refused as a replay. */
const MAX_AGE_S = 5 * 60;
const FORM = 'application/x-www-form-urlencoded';
const INTERACTIVE_PREFIX = 'payload=';

export interface SignedRequestOptions {
  signingSecret: string;
  /** The paths Slack posts to; any other request goes straight to the next listener. */
  endpoints: readonly string[];
  /** Bodies over this many bytes get 413 (Slack's own are far smaller). */
  bodyLimit: number;
  logger: Logger;
  nowMs?: () => number;
  /**
   * Where a request that passed the check goes, with its body (for a click or submission, the JSON it carries):
   * by default to `next`, with the body as Bolt's receiver reads it (`rawBody`).
   */
  checked?: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;
}

/**
 * Slack's HTTP requests, read and checked once before Bolt's receiver sees them (its own check is then
 * off). Bolt reads a form body as a string, parses it to look for `ssl_check`, signs the string, then
 * parses the body again and the payload inside; under a burst of clicks that was half the CPU spent
 * before each ack. Here the signature is checked over the bytes as received, and a click or submission
 * (`payload=<json>`) goes on as the JSON it carries, so Bolt parses it once. Whatever is refused gets
 * 401 (bad, missing or stale signature), 400 (signed, but not a JSON object) or 413 (too large) and
 * reaches nothing.
 */
export function signedRequestListener(next: RequestListener, options: SignedRequestOptions): RequestListener {
  return (req, res) => {
    if (req.method?.toUpperCase() !== 'POST' || !options.endpoints.includes(routedPath(req))) return next(req, res);
    void readBody(req, options.bodyLimit)
      .then(
        (body) => {
          if (!body) return refuse(res, 413, options.logger, 'Slack request body over the limit');
          const checked = checkedBody(req, body, options);
          if ('refused' in checked) return refuse(res, checked.refused, options.logger, checked.why);
          if (options.checked) options.checked(req, res, checked.body);
          else handOn(next, req, res, checked.body);
        },
        () => refuse(res, 400, options.logger, 'Slack request body could not be read'),
      )
      // Called after the body was read, a listener's throw is no longer caught by the server's own handler:
      // answered here, it cannot become an unhandled rejection that ends the process.
      .catch((error: unknown) => {
        options.logger.error({ err: error }, 'a Slack request failed before it was handled');
        if (!res.headersSent) refuse(res, 500, options.logger, 'Slack request failed');
      });
  };
}

/** Hands a checked request on to Bolt's receiver, which reads the body from `rawBody` instead of the stream. */
export function handOn(next: RequestListener, req: IncomingMessage, res: ServerResponse, body: Buffer): void {
  Object.assign(req, { rawBody: body });
  next(req, res);
}

/**
 * The path exactly as Bolt's receiver routes it (a URL's normalised pathname): any other reading lets a
 * request the check takes for another route (`/slack/./events`, `/slack/events#x`, an absolute URL)
 * reach Bolt's events endpoint unchecked.
 */
function routedPath(req: IncomingMessage): string {
  try {
    return new URL(req.url ?? '/', 'http://localhost').pathname;
  } catch {
    return '';
  }
}

/** The body, or undefined once it passes `limit` bytes (the rest is not read). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.once('end', () => resolve(size > limit ? undefined : Buffer.concat(chunks, size)));
    req.once('error', reject);
  });
}

type Checked = { body: Buffer } | { refused: 400 | 401; why: string };

const UNSIGNED: Checked = { refused: 401, why: 'Slack request with a bad, missing or stale signature' };
// Every body Slack sends is an object. Bolt reads fields of whatever it parses outside any catch, so
// a signed `null` would end the process: refused here instead.
const NOT_AN_OBJECT: Checked = { refused: 400, why: 'Slack request body is not a JSON object' };

/**
 * The body to hand on, or why not. An `ssl_check` is unsigned by design and goes on stripped of anything
 * else; a signed interactive payload goes on as its JSON.
 */
function checkedBody(req: IncomingMessage, body: Buffer, options: SignedRequestOptions): Checked {
  // A form sent with parameters (`; charset=UTF-8`, as fetch and many clients send one) is still a form; Bolt
  // compares the header exactly, so it is handed on bare.
  if (mediaType(req.headers['content-type']) === FORM) req.headers['content-type'] = FORM;
  // Bolt parses any other content type as JSON.
  if (req.headers['content-type'] !== FORM) {
    if (!signatureMatches(req, body, options)) return UNSIGNED;
    return firstNonBlankByte(body) === 0x7b /* { */ ? { body } : NOT_AN_OBJECT;
  }
  const interactive = body.subarray(0, INTERACTIVE_PREFIX.length).toString('latin1') === INTERACTIVE_PREFIX && !body.includes(0x26 /* & */);
  if (!interactive) {
    const form = parseForm(body.toString('utf8'));
    if (form.ssl_check === '1') return { body: Buffer.from('ssl_check=1') };
    if (!signatureMatches(req, body, options)) return UNSIGNED;
    return typeof form.payload === 'string' && !isObjectText(form.payload) ? NOT_AN_OBJECT : { body };
  }
  if (!signatureMatches(req, body, options)) return UNSIGNED;
  // The form's bytes are UTF-8 whether or not a client percent-encoded them; decoded as bytes, over the body
  // read for this request. Decoded as text, a click (its message's blocks, often with a character past
  // Latin-1, so two bytes a character) became three strings and a copy before Bolt read it again: the
  // largest part of a click's own work before its ack, and of its garbage (decision 030, session 17).
  const json = decodedInPlace(body.subarray(INTERACTIVE_PREFIX.length));
  if (json === undefined || !isUtf8(json) || firstNonBlankByte(json) !== 0x7b /* { */) return NOT_AN_OBJECT;
  req.headers['content-type'] = 'application/json';
  return { body: json };
}

/** `type/subtype` of a Content-Type header, lower case, without its parameters. */
function mediaType(header: string | undefined): string {
  return (header ?? '').split(';', 1)[0]!.trim().toLowerCase();
}

function firstNonBlankByte(bytes: Buffer): number | undefined {
  for (const byte of bytes) if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return byte;
  return undefined;
}

const isObjectText = (text: string): boolean => text.trimStart().startsWith('{');

function signatureMatches(req: IncomingMessage, body: Buffer, options: SignedRequestOptions): boolean {
  const signature = req.headers['x-slack-signature'];
  const timestamp = req.headers['x-slack-request-timestamp'];
  if (typeof signature !== 'string' || typeof timestamp !== 'string' || !/^\d+$/.test(timestamp)) return false;
  // Either way: a request dated ahead would stay replayable for as long as it is ahead.
  if (Math.abs(Number(timestamp) - (options.nowMs?.() ?? Date.now()) / 1000) > MAX_AGE_S) return false;
  const expected = Buffer.from(`v0=${createHmac('sha256', options.signingSecret).update(`v0:${timestamp}:`).update(body).digest('hex')}`);
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Each byte's value as a hexadecimal digit, -1 for a byte that is not one. */
const HEX_DIGIT = new Int8Array(256).fill(-1);
for (let digit = 0; digit < 16; digit += 1) {
  const text = digit.toString(16);
  HEX_DIGIT[text.charCodeAt(0)] = digit;
  HEX_DIGIT[text.toUpperCase().charCodeAt(0)] = digit;
}

/**
 * A form value decoded as `application/x-www-form-urlencoded` says ('+' is a space, `%XX` a byte), written
 * over its own bytes (a decoded value is never longer); undefined when an escape is malformed or cut off.
 * A click's payload is mostly escapes (every quote, brace and colon of its JSON), so the digits are read
 * from a table (~8 µs a click less than comparing ranges).
 */
function decodedInPlace(encoded: Buffer): Buffer | undefined {
  const end = encoded.length;
  let written = 0;
  for (let read = 0; read < end; read += 1) {
    const byte = encoded[read]!;
    if (byte === 0x25 /* % */) {
      if (read + 2 >= end) return undefined;
      const high = HEX_DIGIT[encoded[read + 1]!]!;
      const low = HEX_DIGIT[encoded[read + 2]!]!;
      if ((high | low) < 0) return undefined;
      encoded[written++] = (high << 4) | low;
      read += 2;
    } else encoded[written++] = byte === 0x2b /* + */ ? 0x20 : byte;
  }
  return encoded.subarray(0, written);
}

function refuse(res: ServerResponse, status: number, logger: Logger, why: string): void {
  logger.warn({ status }, why);
  res.writeHead(status);
  res.end();
}
