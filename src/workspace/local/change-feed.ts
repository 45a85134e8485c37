import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Server-Sent Events telling open pages that something changed (the bot posted, edited, opened a
 * modal); each page then re-reads the state. Bursts (a board edit per second, several posts) are
 * coalesced into one event.
 */
export class ChangeFeed {
  private readonly clients = new Set<ServerResponse>();
  private version = 0;
  private timer: NodeJS.Timeout | undefined;
  /** A comment line now and then keeps idle proxies and browsers from dropping the stream. */
  private readonly heartbeat = setInterval(() => {
    for (const client of this.clients) client.write(': keep-alive\n\n');
  }, 20_000).unref();

  subscribe(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
    res.write(`retry: 1000\nevent: change\ndata: ${this.version}\n\n`);
    this.clients.add(res);
    req.on('close', () => this.clients.delete(res));
  }

  changed(): void {
    this.version += 1;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      for (const client of this.clients) client.write(`event: change\ndata: ${this.version}\n\n`);
    }, 25);
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    clearInterval(this.heartbeat);
    for (const client of this.clients) client.end();
    this.clients.clear();
  }
}
