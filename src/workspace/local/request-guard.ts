import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { RequestGuard } from '../slack-fake/server.ts';

/**
 * Who may use the local workspace. Its page acts as the local person (mentions, approvals), so a
 * stranger must not reach it: not another process on the machine, not another web page in the
 * operator's browser, not a DNS name rebound to 127.0.0.1.
 *
 * - Every request must name the workspace's own address in `Host` (a rebound name does not), and an
 *   `Origin`, when the browser sends one, must be that same origin.
 * - The page and its browser API need the key made at start-up: `?k=<key>` in the printed address,
 *   then a cookie (HttpOnly, SameSite=Strict) the page's own requests carry. Other sites cannot
 *   read it or make the browser send it.
 * - The bot does not hold the key; what it holds is as secret: at `/api/` (the fake Web API) the bot
 *   token made at start-up, at `/respond/<id>` a random response_url it was handed.
 * - A POST outside the Web API must be JSON, which a cross-site form cannot send without a preflight.
 *
 * Every refusal is 403 with a one-line reason (415 for a keyed request that is not JSON), before the
 * body is read or anything changes.
 */
export interface WorkspaceKey {
  /** The key itself, for the printed address. */
  key: string;
  /** The `Set-Cookie` value that lets the page's own requests carry the key. */
  cookie: string;
  guard: RequestGuard;
}

export function createWorkspaceKey(input: { port: number; botToken: string; isIssuedResponse: (id: string) => boolean }): WorkspaceKey {
  const { port } = input;
  const key = randomBytes(24).toString('base64url');
  // Browsers share cookies across the ports of one host, so the name carries the port.
  const cookieName = `tandem_local_${port}`;
  // Only the address printed: any other name, `localhost` included, is not what the operator was given.
  const host = `127.0.0.1:${port}`;
  const refuse = (error: string) => ({ status: 403, error });

  const guard: RequestGuard = (req, url) => {
    if (req.headers.host !== host) return refuse(`Host "${req.headers.host ?? ''}" is not the local workspace's address; open the address Tandem printed.`);
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://${host}`) return refuse('Requests to the local workspace must come from its own page.');
    if (url.pathname.startsWith('/api/')) {
      return sameKey(input.botToken, bearer(req)) ? undefined : refuse("The local workspace's Web API takes only the bot token made at start-up.");
    }
    const notJson = req.method === 'POST' && !isJson(req) ? { status: 415, error: 'The local workspace takes JSON request bodies only.' } : undefined;
    if (url.pathname.startsWith('/respond/')) {
      return input.isIssuedResponse(url.pathname.slice('/respond/'.length)) ? notJson : refuse('That is not a response URL this workspace handed to the bot.');
    }
    if (!sameKey(key, url.searchParams.get('k') ?? readCookie(req, cookieName))) {
      return refuse('This request does not carry the local workspace key; open the address Tandem printed ("Local workspace: …").');
    }
    return notJson;
  };
  return { key, cookie: `${cookieName}=${key}; Path=/; HttpOnly; SameSite=Strict`, guard };
}

function isJson(req: IncomingMessage): boolean {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase() === 'application/json';
}

function bearer(req: IncomingMessage): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
}

function readCookie(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

function sameKey(expected: string, given: string | null | undefined): boolean {
  if (!given) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
