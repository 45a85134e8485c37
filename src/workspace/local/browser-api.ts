import type { ServerResponse } from 'node:http';
import type { z } from 'zod';
import type { Logger } from '../../observability/logger.ts';
import type { ExtraRoutes } from '../slack-fake/server.ts';
import {
  ClickButton,
  clickButton,
  CloseModal,
  closeModal,
  PostMessage,
  postMessage,
  StopSession,
  stopSession,
  SubmitModal,
  submitModal,
  type ActionAnswer,
  type BrowserContext,
} from './browser-actions.ts';
import { pageState } from './browser-state.ts';
import { SwitchPerson } from './people.ts';
import { switchPerson } from './switch-person.ts';
import { isPageFile, servePageFile } from './static-files.ts';

type Post = { schema: z.ZodType; run: (ctx: BrowserContext, input: never) => ActionAnswer | Promise<ActionAnswer> };

const POSTS: Record<string, Post> = {
  '/local/messages': { schema: PostMessage, run: postMessage },
  '/local/actions': { schema: ClickButton, run: clickButton },
  '/local/views/submit': { schema: SubmitModal, run: submitModal },
  '/local/views/close': { schema: CloseModal, run: closeModal },
  '/local/sessions/stop': { schema: StopSession, run: stopSession },
  '/local/people/current': { schema: SwitchPerson, run: switchPerson },
};

/**
 * The page and its browser API, served beside the fake Web API on the same port:
 * GET / (the page), GET /healthz, GET /local/state, GET /local/events (SSE), and the POSTs above.
 * Every one of them is reached only through the workspace's guard (request-guard.ts): its address,
 * its own origin, its key, JSON bodies.
 */
export function browserRoutes(ctx: BrowserContext, logger: Logger): ExtraRoutes {
  return (req, res, body) => {
    const url = new URL(req.url ?? '/', ctx.fake.origin);
    const path = url.pathname;
    if (req.method === 'GET' && isPageFile(path)) {
      // The request got here with the key (the guard saw to it): the cookie lets the page's own requests carry it.
      servePageFile(path, res, { 'set-cookie': ctx.cookie }).catch((error: unknown) => {
        logger.error({ err: String(error), path }, 'local workspace: could not serve a page file');
        if (!res.headersSent) res.writeHead(500).end();
      });
      return true;
    }
    if (req.method === 'GET' && path === '/healthz') return sendJson(res, 200, { ok: true });
    if (req.method === 'GET' && path === '/local/state') {
      const bot = ctx.bot();
      const healthUrl = bot ? new URL('/healthz', bot.eventsUrl).href : null;
      return sendJson(
        res,
        200,
        pageState({
          model: ctx.fake.model,
          healthUrl,
          connected: bot !== undefined,
          notice: ctx.notice.text,
          modal: ctx.modal.current,
          people: ctx.people,
          demo: ctx.demo,
        }),
      );
    }
    if (req.method === 'GET' && path === '/local/events') {
      ctx.feed.subscribe(req, res);
      return true;
    }
    const post = Object.hasOwn(POSTS, path) ? POSTS[path] : undefined;
    if (req.method !== 'POST' || !post) return false;
    const input = parseJson(body, post.schema);
    if (!input.ok) return sendJson(res, 400, { ok: false, error: input.error });
    Promise.resolve(post.run(ctx, input.value as never))
      .then((answer) => sendJson(res, answer.status, answer.body))
      .catch((error: unknown) => {
        logger.error({ err: String(error), path }, 'local workspace: browser action failed');
        sendJson(res, 500, { ok: false, error: 'The local workspace hit an internal error; see the terminal.' });
      });
    return true;
  };
}

function parseJson(body: string, schema: z.ZodType): { ok: true; value: unknown } | { ok: false; error: string } {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { ok: false, error: 'The request body is not JSON.' };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) return { ok: false, error: parsed.error.issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`).join('; ') };
  return { ok: true, value: parsed.data };
}

function sendJson(res: ServerResponse, status: number, body: unknown): true {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
  return true;
}
