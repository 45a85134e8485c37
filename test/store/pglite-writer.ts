// Child process for pglite-folder.test.ts: commits runs one by one into a PGlite folder, reports each,
// then waits to be killed.
import { createRunStore, openDatabase } from '../../src/store/index.ts';

const [dataDir, countText] = process.argv.slice(2);
const database = await openDatabase({ dataDir: dataDir! });
await database.migrate();
const store = createRunStore(database.db);
for (let i = 0; i < Number(countText); i++) {
  await store.createRun({ task: `task ${i}`, requester: 'U1', conversation: { channel: 'C1', threadTs: String(i) }, origin: 'cli' });
}
process.stdout.write(`committed ${countText}\n`);
setInterval(() => {}, 1000);
