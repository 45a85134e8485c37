import { z } from 'zod';
import { DataDirLockedError } from '../store/index.ts';
import { readCliControl } from '../runtime/cli-control.ts';
import type { CommandOptions } from './command-options.ts';
import type { CommandIo } from './command-io.ts';

const Answer = z.object({ exitCode: z.number().int(), stdout: z.string(), stderr: z.string() });

/**
 * A store command the CLI cannot run itself because a running bot holds the embedded store: the bot runs it on its
 * own store and answers with the words and exit code. Undefined when there is no bot to ask (the lock's error
 * stands); a bot that answers badly is said as such.
 */
export async function runInRunningBot(
  locked: DataDirLockedError,
  request: { command: string; args: string[]; options: CommandOptions },
  io: CommandIo,
): Promise<number | undefined> {
  const control = readCliControl(locked.dataDir);
  if (!control || control.pid !== locked.pid) return undefined;
  let response: Response;
  try {
    response = await fetch(`http://127.0.0.1:${control.port}/tandem/cli`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${control.token}` },
      body: JSON.stringify(request),
      signal: AbortSignal.timeout(120_000),
    });
  } catch (error) {
    io.err(
      `tandem: the running bot (pid ${control.pid}) holds DATA_DIR ${locked.dataDir} and did not answer on port ${control.port}: ${(error as Error).message}\n`,
    );
    return 1;
  }
  const answer = Answer.safeParse(await response.json().catch(() => undefined));
  if (!response.ok || !answer.success) {
    io.err(`tandem: the running bot (pid ${control.pid}) refused the command (HTTP ${response.status}); try again, or stop it first\n`);
    return 1;
  }
  io.out(answer.data.stdout);
  io.err(answer.data.stderr);
  return answer.data.exitCode;
}
