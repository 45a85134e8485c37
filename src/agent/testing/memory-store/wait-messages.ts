/** Where each wait's message was posted, in memory: wait-messages-repository.ts. */
import type { HumanInputPort } from '../../ports/human-input.ts';
import { byTick, maybeText, text, untick, type MemoryTables } from './tables.ts';

export function memoryWaitMessages(tables: MemoryTables): Pick<HumanInputPort, 'recordWaitMessage' | 'listWaitMessages'> {
  return {
    async recordWaitMessage(input) {
      const write = tables.begin();
      tables.runRow(input.runId);
      const row = { ...input, key: text(input.key), channel: text(input.channel), ts: text(input.ts), permalink: maybeText(input.permalink) };
      tables.waitMessages.set(JSON.stringify([input.runId, input.wait, row.key]), { ...row, postedAt: write.now, tick: write.tick });
    },
    async listWaitMessages(runId) {
      return [...tables.waitMessages.values()]
        .filter((row) => row.runId === runId)
        .sort(byTick)
        .map(untick);
    },
  };
}
