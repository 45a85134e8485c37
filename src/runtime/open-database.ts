import { createServer } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import type { Config } from '../config/config.ts';
import { openDatabase, type Database } from '../store/index.ts';
import type { Logger } from '../observability/logger.ts';
import { databaseWhere, passingCode, retryDelayMs, StoreUnreachableError } from '../store/engine/store-unreachable.ts';

/**
 * Called when the PostgreSQL server could not be reached, before the next try (`attempt` from 1). Without it, the
 * first failure is thrown as a StoreUnreachableError (one line naming DATABASE_URL).
 */
export type WhileUnreachable = (error: StoreUnreachableError, attempt: number) => void;

/**
 * PostgreSQL when DATABASE_URL is set, else the embedded PGlite folder under DATA_DIR; migrated. `signal` ends the
 * wait for an unreachable server (a SIGTERM meanwhile): the open then rejects with the signal's reason.
 */
export async function openConfiguredDatabase(config: Readonly<Config>, whileUnreachable?: WhileUnreachable, signal?: AbortSignal): Promise<Database> {
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    try {
      return await unlessAborted(openMigrated(config), signal);
    } catch (error) {
      signal?.throwIfAborted();
      const code = config.database.url ? passingCode(error) : undefined;
      if (!code) throw error;
      const unreachable = new StoreUnreachableError(databaseWhere(config.database.url!), code);
      if (!whileUnreachable) throw unreachable;
      whileUnreachable(unreachable, attempt);
      await delay(retryDelayMs(attempt), undefined, signal ? { signal } : {}).catch(() => signal?.throwIfAborted());
    }
  }
}

/**
 * A connect attempt, given up at once when `signal` aborts (a SIGTERM while the server does not answer): the open
 * rejects with the signal's reason instead of waiting out the connect timeout. A database the abandoned attempt
 * still opens afterwards is closed.
 */
function unlessAborted(attempt: Promise<Database>, signal: AbortSignal | undefined): Promise<Database> {
  if (!signal) return attempt;
  return new Promise<Database>((resolve, reject) => {
    const abandon = () => {
      reject(signal.reason);
      attempt
        .then(
          (database) => database.close(),
          () => undefined,
        )
        .catch(() => undefined);
    };
    signal.addEventListener('abort', abandon, { once: true });
    attempt.then(resolve, reject).finally(() => signal.removeEventListener('abort', abandon));
  });
}

async function openMigrated(config: Readonly<Config>): Promise<Database> {
  const database = config.database.url ? await openDatabase({ url: config.database.url }) : await openDatabase({ dataDir: config.database.dataDir });
  try {
    await database.migrate();
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

/**
 * `tandem start`: an unreachable PostgreSQL server is waited for (it may be starting or restarting), each try
 * logged; meanwhile the bot's port answers 503, so Slack tries its requests again and `/healthz` says why.
 */
export async function openDatabaseWaiting(
  config: Readonly<Config>,
  logger: Logger,
  listen: { port: number; host: string | undefined },
  signal?: AbortSignal,
): Promise<Database> {
  let held: { close(): Promise<void> } | undefined;
  try {
    return await openConfiguredDatabase(
      config,
      (error, attempt) => {
        logger.warn({ attempt, retryInMs: retryDelayMs(attempt) }, `${error.message}; trying again, and answering 503 meanwhile`);
        if (!held && listen.port) held = holdingServer(listen.port, listen.host, logger);
      },
      signal,
    );
  } finally {
    await held?.close();
  }
}

/**
 * While the store is being waited for, something must answer on the bot's port: Slack's requests get 503 (so Slack
 * tries them again) and `/healthz` says why. Closed before the bot's own server takes the port.
 */
export function holdingServer(port: number, host: string | undefined, logger: Logger): { close(): Promise<void> } {
  const server = createServer((req, res) => {
    res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '5' });
    res.end(JSON.stringify({ ok: false, store: 'unreachable' }));
    req.resume();
  });
  server.on('error', (error) => logger.warn({ err: error }, 'the port could not be held while the store is waited for'));
  server.listen(port, host);
  return { close: () => new Promise((resolve) => server.close(() => resolve())) };
}
