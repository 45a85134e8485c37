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
