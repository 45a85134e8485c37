import { z } from 'zod';
import { isAllowedHost } from '../../http/allow-list.ts';
import { AddressRefusedError, guardedRequest, type Resolver } from '../../http/guarded-request.ts';
import { defineTool } from '../define-tool.ts';
import { numberArg } from '../number-arg.ts';

const MAX_BODY_BYTES = 1_000_000;

/** `resolve` replaces the system resolver in tests (a name that answers an internal address). */
/** What the step records; the evaluator checks it, and later steps may reference any of these fields. */
const Output = z.object({
  url: z.string(),
  status: z.number(),
  ok: z.boolean(),
  latencyMs: z.number(),
  contains: z.boolean().optional(),
  bodyCut: z.string().optional(),
  error: z.string().optional(),
});

export function createHttpCheckTool(httpAllow: readonly string[], options: { resolve?: Resolver } = {}) {
  return defineTool({
    name: 'http_check',
    description: `Request a URL and report whether it answered as expected (status, optional text in the body) and how long it took. Only these hosts may be reached: ${httpAllow.length ? httpAllow.join(', ') : '(none configured: TANDEM_HTTP_ALLOW is empty)'}. Use for health checks after a deploy.`,
    risk: 'read',
    output: Output,
    targets: ['url'],
    input: z
      .object({
        url: z.url({ protocol: /^https?$/ }).describe('http(s) URL on an allowed host'),
        method: z.enum(['GET', 'HEAD']).default('GET'),
        expectStatus: numberArg({ min: 100, max: 599 }).optional().describe('The status that counts as healthy; absent: any 2xx'),
        contains: z.string().min(1).max(500).optional().describe('Text the response body must contain'),
        timeoutMs: numberArg({ min: 100, max: 60_000 }).default(10_000).describe('How long to wait for an answer, ms (default 10000)'),
      })
      .refine((args) => !(args.method === 'HEAD' && args.contains), { message: 'contains needs method GET (a HEAD response has no body)', path: ['contains'] }),
    run: async (args, ctx) => {
      const url = new URL(args.url);
      if (!isAllowedHost(url, httpAllow)) {
        return {
          status: 'error',
          error: {
            message: `host ${url.host} is not in TANDEM_HTTP_ALLOW (${httpAllow.join(', ') || 'empty'})`,
            code: 'host-not-allowed',
          },
        };
      }
      const started = performance.now();
      try {
        const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(args.timeoutMs)]);
        const response = await guardedRequest(url, {
          method: args.method,
          allow: httpAllow,
          signal,
          resolve: options.resolve,
          ...(args.contains ? { maxBodyBytes: MAX_BODY_BYTES } : {}),
        });
        const latencyMs = Math.round(performance.now() - started);
        const statusOk = args.expectStatus === undefined ? response.status >= 200 && response.status < 300 : response.status === args.expectStatus;
        const containsOk = args.contains ? (response.body?.text ?? '').includes(args.contains) : undefined;
        return {
          status: 'ok',
          output: {
            url: args.url,
            status: response.status,
            ok: statusOk && containsOk !== false,
            latencyMs,
            ...(containsOk !== undefined ? { contains: containsOk } : {}),
            // Only the first MB is searched: say so, so a "contains: false" is read for what it is.
            ...(response.body?.cut ? { bodyCut: `only the first ${MAX_BODY_BYTES} bytes were read` } : {}),
          },
        };
      } catch (error) {
        if (error instanceof AddressRefusedError) return { status: 'error', error: { message: error.message, code: error.code } };
        if (ctx.signal.aborted) return { status: 'error', error: { message: 'cancelled', code: 'cancelled' } };
        const latencyMs = Math.round(performance.now() - started);
        const timedOut = (error as { name?: string }).name === 'TimeoutError' || (error as { cause?: { name?: string } }).cause?.name === 'TimeoutError';
        const reason = timedOut ? `no answer within ${args.timeoutMs} ms` : describeFetchError(error);
        // An unreachable service is an answer to "is it healthy?", so it is output, judged by check().
        return { status: 'ok', output: { url: args.url, status: 0, ok: false, latencyMs, error: reason } };
      }
    },
    check: (output, args) =>
      output['ok'] === true
        ? { ok: true }
        : {
            ok: false,
            reason: `${args.url} answered ${String(output['status'])}${output['error'] ? ` (${String(output['error'])})` : ''}, expected ${args.expectStatus ?? 'a 2xx status'}${args.contains ? ` containing "${args.contains}"` : ''}`,
          },
  });
}

/** The system's error code (ECONNREFUSED, ENOTFOUND) says it best; the message otherwise. */
function describeFetchError(error: unknown): string {
  const { code, cause, message } = error as { code?: string; cause?: { code?: string; message?: string }; message?: string };
  return (typeof code === 'string' && /^E[A-Z]+$/.test(code) ? code : undefined) ?? cause?.code ?? cause?.message ?? message ?? 'request failed';
}
