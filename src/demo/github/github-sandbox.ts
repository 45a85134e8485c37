/**
 * The demo's GitHub: an HTTP server on 127.0.0.1 that speaks GitHub's REST wire format for what the
 * built-in tools use, so the real octokit-based tools run unchanged against it (GITHUB_API_URL). It
 * also serves each repository's page (where the links in messages go) and a health endpoint per
 * service for `http_check`. Nothing it answers comes from, or goes to, anywhere else.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { repoPage } from './sandbox-pages.ts';
import { NOT_FOUND, routeRepo, type RouteAnswer } from './sandbox-routes.ts';
import { searchIssues } from './sandbox-search.ts';
import { seedWorld, type SandboxWorld } from './sandbox-world.ts';

export interface GithubSandbox {
  /** For GITHUB_API_URL. */
  apiUrl: string;
  /** The one token the API takes (made at start-up): the tools send it as they would a real one. */
  token: string;
  /** `127.0.0.1:PORT`, for TANDEM_HTTP_ALLOW. */
  host: string;
  /** The health endpoint of a demo service, e.g. healthUrl('web'). */
  healthUrl(service: 'api' | 'web'): string;
  world: SandboxWorld;
  close(): Promise<void>;
}

const API = '/api';
const MAX_BODY = 1_000_000;

async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) return undefined;
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return {};
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function send(res: ServerResponse, answer: RouteAnswer, type = 'application/json; charset=utf-8'): void {
  res.writeHead(answer.status, { 'content-type': type, 'cache-control': 'no-store' });
  if (answer.status === 204 || answer.body === undefined) res.end();
  else res.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
}

/** How long a dispatched workflow run takes before it concludes, unless told: long enough to watch. */
export const DEFAULT_RUN_MS = 4_000;

/** `runMs`: how long a dispatched workflow run takes before it concludes (default DEFAULT_RUN_MS). */
export async function startGithubSandbox(options: { runMs?: number } = {}): Promise<GithubSandbox> {
  const world = seedWorld();
  const token = `demo_${randomBytes(12).toString('hex')}`;
  const runMs = options.runMs ?? DEFAULT_RUN_MS;
  let base = '';

  function api(method: string, url: URL, body: Record<string, unknown>): RouteAnswer {
    if (method === 'GET' && url.pathname === '/search/issues') {
      const items = searchIssues(world, base, url.searchParams.get('q') ?? '');
      const perPage = Math.min(Number(url.searchParams.get('per_page') ?? 30) || 30, 100);
      return { status: 200, body: { total_count: items.length, incomplete_results: false, items: items.slice(0, perPage) } };
    }
    const match = /^\/repos\/([^/]+)\/([^/]+)(.*)$/.exec(url.pathname);
    const repo = match ? world.get(`${match[1]}/${match[2]}`.toLowerCase()) : undefined;
    if (!match || !repo) return NOT_FOUND;
    return routeRepo(method, match[3] ?? '', { repo, query: url.searchParams, body, base, runMs });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', base);
    const method = req.method ?? 'GET';
    if (url.pathname.startsWith(`${API}/`)) {
      if (req.headers.authorization !== `token ${token}` && req.headers.authorization !== `bearer ${token}`)
        return send(res, { status: 401, body: { message: 'Bad credentials' } });
      const body = await readJson(req);
      if (!body) return send(res, { status: 400, body: { message: 'Problems parsing JSON' } });
      return send(res, api(method, new URL(url.pathname.slice(API.length) + url.search, base), body));
    }
    const health = /^\/health\/(api|web)$/.exec(url.pathname);
    if (method === 'GET' && health) return send(res, { status: 200, body: { status: 'ok', service: `demo/${health[1]}`, demo: true } });
    const page = /^\/([^/]+)\/([^/]+)(?:\/.*)?$/.exec(url.pathname);
    const repo = page ? world.get(`${page[1]}/${page[2]}`) : undefined;
    if (method === 'GET' && repo) return send(res, { status: 200, body: repoPage(repo) }, 'text/html; charset=utf-8');
    send(res, { status: 404, body: 'Not found in the demo GitHub sandbox.' }, 'text/plain; charset=utf-8');
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => send(res, { status: 500, body: { message: String(error) } }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  base = `http://${host}`;
  return {
    apiUrl: `${base}${API}`,
    token,
    host,
    healthUrl: (service) => `${base}/health/${service}`,
    world,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
