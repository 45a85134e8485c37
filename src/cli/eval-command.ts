import type { Config } from '../config/config.ts';
import type { CommandOptions } from './commands.ts';

export async function evalCommand(_config: Readonly<Config>, _options: CommandOptions): Promise<number> {
  process.stderr.write('tandem eval: the golden task harness is not built yet\n');
  return 1;
}
