/** Reading the fake's requests and writing its answers: bodies read up to a limit, params parsed, refusals sent. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from './params.ts';

export function parseParams(contentType: string | undefined, body: string, url: URL): Params {
  const params: Params = Object.fromEntries(url.searchParams);
  if ((contentType ?? '').includes('application/json')) {
    for (const [key, value] of Object.entries(safeObject(body))) params[key] = typeof value === 'string' ? value : JSON.stringify(value);
  } else {
    for (const [key, value] of new URLSearchParams(body)) params[key] = value;
  }
  return params;
}

export function safeObject(body: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(body);
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

type ReadBody = { ok: true; body: string } | { ok: false; limit: number };

/** Reads at most `limit` bytes: a larger declared length is refused unread, a larger stream is cut off. */
export function readBody(req: IncomingMessage, limit: number): Promise<ReadBody> {
  if (Number(req.headers['content-length'] ?? 0) > limit) return Promise.resolve({ ok: false, limit });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        resolve({ ok: false, limit });
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => resolve({ ok: true, body: Buffer.concat(chunks).toString('utf8') }));
    req.on('error', reject);
  });
}

/** A refusal sent before the body was read: the connection is closed after it so the rest is never read. */
export function refuse(req: IncomingMessage, res: ServerResponse, status: number, error: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', connection: 'close' });
  res.end(JSON.stringify({ ok: false, error }));
  req.resume();
}

export function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
