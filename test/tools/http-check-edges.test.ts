import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedFetch } from '../../src/integrations/http/bounded-body.ts';
import { createHttpCheckTool } from '../../src/integrations/tools/ops/http-check.ts';
import { errorOf, okOutput, runTool } from './tool-context.ts';

/** A server a stranger controls: an endless body, and a count of what reached it. */
let server: Server;
let port = 0;
let hits = 0;
let bytesSent = 0;
let endlessClosed: Promise<void> = Promise.resolve();

beforeAll(async () => {
  server = createServer((req, res) => {
    hits += 1;
    if (req.url === '/endless') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      let markClosed!: () => void;
      endlessClosed = new Promise<void>((resolve) => (markClosed = resolve));
      const pump = () => {
        // Stops when the client hangs up; a client that read it all would get 300 MB.
        while (!res.destroyed && bytesSent < 300_000_000) {
          bytesSent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (!res.destroyed) res.end();
      };
      res.on('close', () => markClosed());
      return pump();
    }
    res.end('healthy');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('http_check against a hostile or unexpected answer', () => {
  it('stops reading an endless body at its 1 MB cap and says the body was cut', async () => {
    const tool = createHttpCheckTool([`127.0.0.1:${port}`]);
    const output = okOutput(await runTool(tool, { url: `http://127.0.0.1:${port}/endless`, contains: 'needle' }));
    expect(output).toMatchObject({ status: 200, ok: false, contains: false, bodyCut: expect.stringContaining('first 1000000 bytes') });
    await endlessClosed;
    // The connection was dropped long before 300 MB: what was sent is the cap plus socket buffers.
    expect(bytesSent).toBeLessThan(50_000_000);
  });

  it('an entry without a port allows any port of its host; host:port only that port', async () => {
    // The setting lists hosts (CONTRACT §2): a service on its own port of an allowed host is reached.
    expect(okOutput(await runTool(createHttpCheckTool(['127.0.0.1']), { url: `http://127.0.0.1:${port}/` }))).toMatchObject({ ok: true });
    expect(okOutput(await runTool(createHttpCheckTool([`127.0.0.1:${port}`]), { url: `http://127.0.0.1:${port}/` }))).toMatchObject({ ok: true });
    const before = hits;
    expect(errorOf(await runTool(createHttpCheckTool([`127.0.0.1:${port + 1}`]), { url: `http://127.0.0.1:${port}/` })).code).toBe('host-not-allowed');
    // Another host, even one on the same machine, is not the host listed.
    expect(errorOf(await runTool(createHttpCheckTool(['localhost']), { url: `http://127.0.0.1:${port}/` })).code).toBe('host-not-allowed');
    expect(hits).toBe(before);
  });

  it('refuses a listed name that resolves to an internal address, before connecting', async () => {
    const before = hits;
    // status.example.test is allowed, but its DNS answers loopback (rebinding) or cloud metadata.
    for (const address of ['127.0.0.1', '169.254.169.254', '10.1.2.3', '::1', '::ffff:127.0.0.1']) {
      const tool = createHttpCheckTool([`status.example.test:${port}`], { resolve: async () => [{ address, family: address.includes(':') ? 6 : 4 }] });
      const refused = errorOf(await runTool(tool, { url: `http://status.example.test:${port}/` }));
      expect(refused).toMatchObject({ code: 'address-not-allowed', message: expect.stringContaining(address) });
    }
    // One internal address among public ones is enough to refuse: the connect could pick it.
    const mixed = createHttpCheckTool([`status.example.test:${port}`], {
      resolve: async () => [
        { address: '93.184.216.34', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ],
    });
    expect(errorOf(await runTool(mixed, { url: `http://status.example.test:${port}/` })).code).toBe('address-not-allowed');
    expect(hits).toBe(before);
  });

  it('reaches an internal address the allow-list names, and connects to the address it checked', async () => {
    const named = createHttpCheckTool([`status.example.test:${port}`, '127.0.0.1'], { resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
    expect(okOutput(await runTool(named, { url: `http://status.example.test:${port}/` }))).toMatchObject({ status: 200, ok: true });
  });

  it('an IP literal written another way is still the address it names', async () => {
    const tool = createHttpCheckTool([`127.0.0.1:${port}`]);
    // The URL parser turns 0x7f.1 into 127.0.0.1, which is what the allow-list names.
    expect(okOutput(await runTool(tool, { url: `http://0x7f.1:${port}/` }))).toMatchObject({ ok: true });
    expect(errorOf(await runTool(createHttpCheckTool(['169.254.169.254.nip.test']), { url: 'http://169.254.169.254/latest/meta-data' })).code).toBe(
      'host-not-allowed',
    );
  });

  it("the MCP client's fetch stops reading an endless answer to a POST at its cap", async () => {
    bytesSent = 0;
    const limited = boundedFetch(1_000_000);
    const response = await limited(`http://127.0.0.1:${port}/endless`, { method: 'POST', body: '{}' });
    await expect(response.text()).rejects.toThrow(/over 1000000 bytes/);
    await endlessClosed;
    expect(bytesSent).toBeLessThan(50_000_000);
  });
});
