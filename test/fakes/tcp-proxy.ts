import net from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a server (PostgreSQL in the infra tests) that can cut the line:
 * `cut()` resets every open connection and refuses new ones (as a database restart or a failover looks
 * to its clients), `restore()` lets connections through again. Nothing on the server changes.
 */
export interface TcpProxy {
  port: number;
  /** `postgres://…` with the host and port replaced by the proxy's. */
  urlFor(url: string): string;
  cut(): void;
  restore(): void;
  /**
   * The next statement whose text `match` accepts is sent to the server, and its connection is reset as the
   * server's answer arrives: the server did it (a commit, a write, a read), the client never hears. Resolves
   * with the statement's text once that happened.
   */
  resetAfterAnswer(match: (statement: string) => boolean): Promise<string>;
  /** Connections accepted since start (each reconnect of a pool counts). */
  readonly accepted: number;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<net.Socket>();
  let down = false;
  let accepted = 0;
  let armed: { match: (statement: string) => boolean; done: (statement: string) => void } | undefined;
  const server = net.createServer((client) => {
    if (down) return void client.resetAndDestroy();
    accepted += 1;
    const upstream = net.connect(target.port, target.host);
    open.add(client).add(upstream);
    let doomed: { statement: string; done: (statement: string) => void } | undefined;
    const statements = frontendStatements();
    client.on('data', (chunk: Buffer) => {
      // Read always, so statements prepared before the proxy was armed are known by name.
      const ran = statements(chunk);
      if (!armed || doomed) return;
      const hit = ran.find((statement) => armed!.match(statement));
      if (hit !== undefined) {
        doomed = { statement: hit, done: armed.done };
        armed = undefined;
      }
    });
    upstream.on('data', () => {
      if (!doomed) return;
      client.resetAndDestroy();
      upstream.resetAndDestroy();
      doomed.done(doomed.statement);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => void (doomed || client.write(chunk)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    urlFor(url) {
      const parsed = new URL(url);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(port);
      return parsed.toString();
    },
    cut() {
      down = true;
      for (const socket of open) socket.resetAndDestroy();
      open.clear();
    },
    restore() {
      down = false;
    },
    resetAfterAnswer(match) {
      return new Promise((done) => (armed = { match, done }));
    },
    get accepted() {
      return accepted;
    },
    async close() {
      down = true;
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Reads PostgreSQL's frontend protocol as it passes (after the startup message): each chunk gives the texts
 * of the statements it runs: a simple query, or the bind of a statement prepared on this connection. A
 * statement only parsed has not run yet.
 */
function frontendStatements(): (chunk: Buffer) => string[] {
  let pending = Buffer.alloc(0);
  let started = false;
  const prepared = new Map<string, string>();
  const cstrings = (body: Buffer) => body.toString('utf8').split('\0');
  return (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    const ran: string[] = [];
    for (;;) {
      if (!started) {
        if (pending.length < 4 || pending.length < pending.readInt32BE(0)) break;
        pending = pending.subarray(pending.readInt32BE(0));
        started = true;
        continue;
      }
      if (pending.length < 5 || pending.length < 1 + pending.readInt32BE(1)) break;
      const type = String.fromCharCode(pending[0]!);
      const body = pending.subarray(5, 1 + pending.readInt32BE(1));
      pending = pending.subarray(1 + pending.readInt32BE(1));
      if (type === 'Q') ran.push(cstrings(body)[0]!);
      else if (type === 'P') {
        const [name, text] = cstrings(body);
        prepared.set(name!, text!);
        if (name === '') ran.push(text!);
      } else if (type === 'B') {
        const statement = cstrings(body)[1]!;
        if (statement !== '' && prepared.has(statement)) ran.push(prepared.get(statement)!);
      }
    }
    return ran;
  };
}
