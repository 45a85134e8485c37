/* global setTimeout */
/**
 * PGlite's own thread. PGlite runs PostgreSQL as WebAssembly in the thread that calls it, each statement
 * synchronously from start to end: on the bot's main thread a queue of statements held the event loop for
 * seconds at a time (acks, timers and the health check waited behind them; decision 049). Here it runs
 * beside the main thread, which sends each statement as a message (pglite-thread-client.ts) and goes on.
 *
 * One PGlite, one session: statements run one at a time in the order they arrive, as PGlite's own locks
 * order them, and a transaction holds the store from its BEGIN until the client ends it, as on one thread.
 * Plain JavaScript: a worker thread starts without the TypeScript loader the main thread may have.
 *
 * Messages in: { id, op: 'query', text, params, rowMode, textTypes, tx?, unprepared? } | { id, op: 'exec', text, tx? }
 *   | { id, op: 'begin', unprepared? } (its id names the transaction) | { id, op: 'end', tx, commit } | { id, op: 'close' }.
 * `unprepared` (migrations) runs through PGlite's own `query()`, outside the prepared set.
 * Messages out: { id, ok: true, value } | { id, ok: false, error }, and once { op: 'opened', error? }.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { preparingPglite } from './pglite-prepared.mjs';

/** A closing store lets what is in flight finish, but not a transaction left open for ever. */
const CLOSE_WAITS_AT_MOST_MS = 10_000;
const ROLLED_BACK = Symbol('rolled back');

/** @type {{ dataDir?: string, startParams: string[], loadDataDir?: Blob }} */
const { dataDir, startParams, loadDataDir } = workerData;
const options = { startParams: [...PGlite.defaultStartParams, ...startParams], ...(loadDataDir ? { loadDataDir } : {}) };

/** A statement's error as plain data: its message and the fields PostgreSQL gave it (code, detail, constraint…). */
function plainError(error) {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const fields = {};
  for (const [key, value] of Object.entries(error)) if (['string', 'number', 'boolean'].includes(typeof value)) fields[key] = value;
  return { ...fields, name: error.name, message: error.message };
}

/** Types the caller parses itself (drizzle keeps timestamps as PostgreSQL wrote them): left as text here. */
const asText = (value) => value;
const queryOptions = (rowMode, textTypes) => ({ rowMode, parsers: Object.fromEntries(textTypes.map((type) => [type, asText])) });

let raw;
let store;
try {
  raw = dataDir ? await PGlite.create(dataDir, options) : await PGlite.create(options);
  store = preparingPglite(raw);
  parentPort.postMessage({ op: 'opened' });
} catch (error) {
  // The client ends the thread once it has read why (exiting here could overtake the message).
  parentPort.postMessage({ op: 'opened', error: plainError(error) });
}

/** @type {Map<number, { tx: import('@electric-sql/pglite').Transaction, end: (commit: boolean) => void }>} open transactions by id */
const transactions = new Map();
const inFlight = new Set();

function begin(id, unprepared) {
  return new Promise((begun, failed) => {
    const ended = (unprepared ? raw : store).transaction(
      (tx) =>
        new Promise((commit, rollBack) => {
          transactions.set(id, { tx, end: (keep) => (keep ? commit() : rollBack(ROLLED_BACK)) });
          begun();
        }),
    );
    const settled = ended.then(
      () => ({ ok: true }),
      (error) => (error === ROLLED_BACK ? { ok: true } : { ok: false, error }),
    );
    inFlight.add(settled);
    void settled.then((outcome) => {
      inFlight.delete(settled);
      const open = transactions.get(id);
      transactions.delete(id);
      // BEGIN itself failed: the caller is still waiting for it.
      if (!open) return outcome.ok ? begun() : failed(outcome.error);
      open.settled?.(outcome);
    });
  });
}

function end(txId, commit) {
  const open = transactions.get(txId);
  if (!open) return Promise.reject(new Error('the transaction is not open'));
  return new Promise((resolve, reject) => {
    open.settled = (outcome) => (outcome.ok ? resolve(undefined) : reject(outcome.error));
    open.end(commit);
  });
}

async function close() {
  const waited = Promise.allSettled([...inFlight]);
  await Promise.race([waited, new Promise((resolve) => setTimeout(resolve, CLOSE_WAITS_AT_MOST_MS).unref())]);
  await raw.close();
}

function perform(message) {
  const on = message.tx !== undefined ? transactions.get(message.tx)?.tx : message.unprepared ? raw : store;
  switch (message.op) {
    case 'query':
      if (!on) return Promise.reject(new Error('the transaction is not open'));
      return on.query(message.text, message.params, queryOptions(message.rowMode, message.textTypes));
    case 'exec':
      if (!on) return Promise.reject(new Error('the transaction is not open'));
      return on.exec(message.text);
    case 'begin':
      return begin(message.id, message.unprepared);
    case 'end':
      return end(message.tx, message.commit);
    case 'close':
      return close();
    default:
      return Promise.reject(new Error(`unknown operation ${message.op}`));
  }
}

parentPort.on('message', (message) => {
  if (!store) return;
  const work = perform(message);
  if (message.op !== 'close' && message.op !== 'end') inFlight.add(work);
  work.then(
    (value) => parentPort.postMessage({ id: message.id, ok: true, value }),
    (error) => parentPort.postMessage({ id: message.id, ok: false, error: plainError(error) }),
  );
  void work.catch(() => {}).finally(() => inFlight.delete(work));
});
