/** EventsPort in memory: events-repository.ts (numbered on the run's counter, gap-free, in the order given). */
import type { EventsPort } from '../../ports/events.ts';
import { parseRunEvent, type RunEvent } from '../../model/run-events.ts';
import type { MemoryTables, StoredEvent } from './tables.ts';
import { json } from './tables.ts';

/** A stored row as the real store reads it: parsed by its type's schema, an unknown one as `unknown`. */
export const readEvent = (event: StoredEvent): RunEvent => parseRunEvent({ ...event, data: json(event.data), at: new Date(event.at) });

export function memoryEvents(tables: MemoryTables): EventsPort {
  return {
    async appendEvent(runId, type, data) {
      const write = tables.begin();
      const [event] = tables.appendEvents(tables.runRow(runId), [{ type, data }], write);
      return readEvent(event!);
    },
    async appendEvents(runId, batch) {
      if (batch.length === 0) return [];
      const write = tables.begin();
      return tables.appendEvents(tables.runRow(runId), batch, write).map(readEvent);
    },
    async appendToRuns(entries) {
      if (entries.length === 0) return;
      const write = tables.begin();
      for (const { runId, event } of entries) {
        const row = tables.runs.get(runId);
        if (row) tables.appendEvents(row, [event], write);
      }
    },
    async listEvents(runId) {
      return (tables.events.get(runId) ?? []).map(readEvent);
    },
  };
}
