import type { Readable } from 'node:stream';

export interface BoundedBody {
  text: string;
  /** Bytes read; at most the cap. */
  bytes: number;
  /** The body went on past the cap; the rest was never read. */
  cut: boolean;
}

/**
 * Reads a body a stranger sends us, a chunk at a time, and stops at `maxBytes`: a 300 MB answer
 * costs at most the cap in memory. The stream is destroyed when the cap is reached.
 */
export async function readBounded(body: Readable, maxBytes: number): Promise<BoundedBody> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  let cut = false;
  for await (const chunk of body) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    const room = maxBytes - bytes;
    if (buffer.length >= room) {
      cut = buffer.length > room;
      chunks.push(buffer.subarray(0, room));
      bytes += room;
      if (cut) break;
      continue;
    }
    chunks.push(buffer);
    bytes += buffer.length;
  }
  if (cut) body.destroy();
  // A multi-byte character split at the cap decodes to U+FFFD, which is what a cut should look like.
  return { text: Buffer.concat(chunks).toString('utf8'), bytes, cut };
}

/** The answer to a request went on past the cap; what was read is discarded. */
export class BodyTooLargeError extends Error {
  readonly code = 'body-too-large';
  constructor(url: string, maxBytes: number) {
    super(`the answer from ${url} is over ${maxBytes} bytes; stopped reading`);
  }
}

/**
 * A fetch for SDKs that read a stranger's answers whole (the MCP client over HTTP): the body of an
 * answer to a POST errors once it passes `maxBytes`, and the connection is dropped. A GET is left
 * alone: there it is a long-lived event stream whose total size says nothing.
 */
export function boundedFetch(maxBytes: number, inner: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    if (method === 'GET' || !response.body) return response;
    const url = input instanceof Request ? input.url : String(input);
    let bytes = 0;
    const counter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        bytes += chunk.byteLength;
        if (bytes > maxBytes) controller.error(new BodyTooLargeError(url, maxBytes));
        else controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(counter), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
