import { z } from 'zod';
import { defineTool } from './define-tool.ts';

const MAX_BODY_BYTES = 1_000_000;

/** Exact host match: `api.example.com` does not let `evil.api.example.com` through. An entry may carry a port. */
export function isAllowedHost(url: URL, allow: readonly string[]): boolean {
  const host = url.hostname.toLowerCase();
  const hostWithPort = url.host.toLowerCase();
  return allow.some((entry) => entry.toLowerCase() === host || entry.toLowerCase() === hostWithPort);
}

export function createHttpCheckTool(httpAllow: readonly string[]) {
  return defineTool({
    name: 'http_check',
    description: `Request a URL and report whether it answered as expected (status, optional text in the body) and how long it took. Only these hosts may be reached: ${httpAllow.length ? httpAllow.join(', ') : '(none configured: TANDEM_HTTP_ALLOW is empty)'}. Use for health checks after a deploy.`,
    risk: 'read',
    targets: ['url'],
    input: z.object({
      url: z.url({ protocol: /^https?$/ }).describe('http(s) URL on an allowed host'),
      method: z.enum(['GET', 'HEAD']).default('GET'),
      expectStatus: z.number().int().min(100).max(599).default(200),
      contains: z.string().min(1).max(500).optional().describe('Text the response body must contain'),
      timeoutMs: z.number().int().min(100).max(60_000).default(10_000),
    }).refine((args) => !(args.method === 'HEAD' && args.contains), { message: 'contains needs method GET (a HEAD response has no body)', path: ['contains'] }),
    run: async (args, ctx) => {
      const url = new URL(args.url);
      if (!isAllowedHost(url, httpAllow)) {
        return { status: 'error', error: { message: `host ${url.host} is not in TANDEM_HTTP_ALLOW (${httpAllow.join(', ') || 'empty'})`, code: 'host-not-allowed' } };
      }
      const started = performance.now();
      try {
        // Redirects are not followed: they could lead off the allow-list.
        const response = await fetch(url, { method: args.method, redirect: 'manual', signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(args.timeoutMs)]) });
        const body = args.contains ? (await response.text()).slice(0, MAX_BODY_BYTES) : '';
        if (!args.contains) await response.body?.cancel();
        const latencyMs = Math.round(performance.now() - started);
        const statusOk = response.status === args.expectStatus;
        const containsOk = args.contains ? body.includes(args.contains) : undefined;
        return {
          status: 'ok',
          output: { url: args.url, status: response.status, ok: statusOk && containsOk !== false, latencyMs, ...(containsOk !== undefined ? { contains: containsOk } : {}) },
        };
      } catch (error) {
        if (ctx.signal.aborted) return { status: 'error', error: { message: 'cancelled', code: 'cancelled' } };
        const latencyMs = Math.round(performance.now() - started);
        const timedOut = (error as { name?: string }).name === 'TimeoutError';
        const reason = timedOut ? `no answer within ${args.timeoutMs} ms` : describeFetchError(error);
        // An unreachable service is an answer to "is it healthy?", so it is output, judged by check().
        return { status: 'ok', output: { url: args.url, status: 0, ok: false, latencyMs, error: reason } };
      }
    },
    check: (output, args) =>
      output['ok'] === true
        ? { ok: true }
        : { ok: false, reason: `${args.url} answered ${String(output['status'])}${output['error'] ? ` (${String(output['error'])})` : ''}, expected ${args.expectStatus}${args.contains ? ` containing "${args.contains}"` : ''}` },
  });
}

function describeFetchError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message ?? 'request failed';
}
