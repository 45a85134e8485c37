import { timingSafeEqual } from 'node:crypto';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CustomRoute } from '@slack/bolt';
import { z } from 'zod';
import { capturedIo } from '../cli/command-io.ts';
import type { CommandOptions } from '../cli/command-options.ts';
import { runStoreCommand, STORE_COMMANDS } from '../cli/store-command-table.ts';
import type { Config } from '../config/config.ts';
import type { Database } from '../store/index.ts';
import type { Logger } from '../observability/logger.ts';
import { newCliToken, writeCliControl } from './cli-control.ts';

const MAX_BODY_BYTES = 16 * 1024;
const word = z.string().max(200);

const Request = z.object({
  command: z.enum(Object.keys(STORE_COMMANDS) as [string, ...string[]]),
  args: z.array(word).max(10),
  // Only what a store command reads; the CLI's other options are dropped.
  options: z.object({ limit: word.optional(), run: word.optional(), olderThan: word.optional(), json: z.boolean().optional() }),
});

interface CliAccessOptions {
  config: Readonly<Config>;
  database: Database;
  logger: Logger;
}

/**
 * For a bot holding the embedded store: the route that runs the CLI's store commands, and `publish`, which writes
 * the control file the CLI finds it by once the bot listens (and returns its removal, for the stop).
 */
export function embeddedCliAccess(options: CliAccessOptions): { route: CustomRoute; publish(port: number): () => Promise<void> } {
  const token = newCliToken();
  return {
    route: cliRoute({ ...options, token }),
    publish(port) {
      const remove = writeCliControl(path.resolve(options.config.database.dataDir), port, token);
      return async () => remove();
    },
  };
}

/**
 * `POST /tandem/cli`: `tandem runs|show|audit|prune|eval --feedback` while this bot holds the embedded store. Only
 * from this machine (loopback) and with the token of DATA_DIR's control file; the command runs on the bot's own
 * store, exactly as the CLI would run it, and its words and exit code are the answer.
 */
function cliRoute(options: CliAccessOptions & { token: string }): CustomRoute {
  return {
    path: '/tandem/cli',
    method: ['POST'],
    handler: (req, res) => void answer(req, res, options),
  };
}

async function answer(req: IncomingMessage, res: ServerResponse, options: CliAccessOptions & { token: string }): Promise<void> {
  if (!isLoopback(req.socket.remoteAddress) || !sameToken(req.headers.authorization, `Bearer ${options.token}`)) return send(res, 403, { error: 'forbidden' });
  const body = await readBody(req);
  const parsed = Request.safeParse(body === undefined ? undefined : safeJson(body));
  if (!parsed.success) return send(res, 400, { error: 'expected { command, args, options } of a store command' });
  const { command, args } = parsed.data;
  const commandOptions: CommandOptions = {
    local: false,
    recorded: false,
    record: false,
    json: false,
    limit: undefined,
    run: undefined,
    ...parsed.data.options,
  };
  const io = capturedIo();
  // The bot's own store stays open: the command's close() is a no-op.
  const database = { ...options.database, close: async () => undefined };
  try {
    const exitCode = await runStoreCommand(command, args, commandOptions, { config: options.config, io, openDatabase: async () => database });
    send(res, 200, { exitCode, stdout: io.stdout(), stderr: io.stderr() });
  } catch (error) {
    options.logger.warn({ err: error, command }, 'a CLI command run for the terminal failed');
    send(res, 200, { exitCode: 1, stdout: io.stdout(), stderr: `${io.stderr()}tandem: ${(error as Error).message}\n` });
  }
}

function isLoopback(address: string | undefined): boolean {
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';
}

function sameToken(given: string | undefined, expected: string): boolean {
  const a = Buffer.from(given ?? '');
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The body, or undefined past the cap (the request is refused, not read to its end). */
async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
