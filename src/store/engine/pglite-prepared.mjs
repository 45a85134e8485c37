/**
 * PGlite runs each `query()` as six separate calls into its WebAssembly PostgreSQL (parse, describe,
 * bind, describe, execute, sync) and parses and plans the statement every time: about 0.4 ms of fixed
 * cost a statement before PostgreSQL does any work, and as much again planning the bot's larger
 * statements. PGlite is one session, so a statement prepared once under a name stays prepared: here
 * each statement text is prepared the first time it is seen, then run as one bind-execute-sync message.
 * Results are parsed by PGlite's own parser with the caller's options, as `query()` does.
 *
 * Plain JavaScript: it runs in PGlite's own thread (pglite-thread.mjs), which starts without a TypeScript
 * loader. Parameters arrive already made storable by the client (pglite-thread-client.ts).
 */
import { parse, protocol } from '@electric-sql/pglite';

/** Beyond this many statement texts (lists of varying length make new ones), new texts run unprepared. */
const MAX_PREPARED = 500;

/** @param {Uint8Array[]} parts */
function concat(parts) {
  const whole = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let at = 0;
  for (const part of parts) {
    whole.set(part, at);
    at += part.length;
  }
  return whole;
}

/**
 * The client the thread serves: its statements, and those of its transactions, run prepared.
 * @param {import('@electric-sql/pglite').PGlite} client
 * @returns {import('@electric-sql/pglite').PGlite}
 */
export function preparingPglite(client) {
  /** @type {Map<string, { name: string, types: number[] }>} statement text → its name and parameter type ids, as PostgreSQL inferred them */
  const prepared = new Map();

  /** @param {string} text */
  const prepare = async (text) => {
    const name = `tandem_${prepared.size + 1}`;
    const { messages } = await client.execProtocol(
      concat([protocol.serialize.parse({ name, text, types: [] }), protocol.serialize.describe({ type: 'S', name }), protocol.serialize.sync()]),
      { syncToFs: false },
    );
    const statement = { name, types: parse.parseDescribeStatementResults(messages) };
    prepared.set(text, statement);
    return statement;
  };

  /** Each value is serialised for the type PostgreSQL inferred for its parameter. */
  const run = async (text, params, options, syncToFs) => {
    const statement = prepared.get(text) ?? (await prepare(text));
    const values = params.map((value, index) => {
      if (value === null || value === undefined) return null;
      const type = statement.types[index];
      const serialize = options?.serializers?.[type] ?? client.serializers[type];
      return serialize ? serialize(value) : String(value);
    });
    const { messages } = await client.execProtocol(
      concat([
        protocol.serialize.bind({ statement: statement.name, values }),
        protocol.serialize.describe({ type: 'P' }),
        protocol.serialize.execute({}),
        protocol.serialize.sync(),
      ]),
      { syncToFs },
    );
    return parse.parseResults(messages, client.parsers, options)[0];
  };

  /** `original` for texts beyond the cap; `exclusive` holds the store as the original would. */
  const preparing =
    (original, exclusive, syncToFs) =>
    (text, params = [], options) =>
      prepared.has(text) || prepared.size < MAX_PREPARED ? exclusive(() => run(text, params, options, syncToFs)) : original(text, params, options);

  // As `query()`: waits for a transaction to end, then runs alone; a folder-backed store is synced after it.
  const query = preparing(
    client.query.bind(client),
    // A closed or closing store refuses, as query() does, before anything reaches WebAssembly.
    async (work) => {
      await client._checkReady();
      return client._runExclusiveTransaction(() => client._runExclusiveQuery(work));
    },
    true,
  );
  const transaction = (work) =>
    client.transaction((tx) => {
      // The transaction holds the store: its statements take turns among themselves, and it syncs at its end.
      const inTransaction = preparing(tx.query.bind(tx), (statement) => client._runExclusiveQuery(statement), false);
      return work(new Proxy(tx, { get: (target, property, receiver) => (property === 'query' ? inTransaction : Reflect.get(target, property, receiver)) }));
    });
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'query') return query;
      if (property === 'transaction') return transaction;
      return Reflect.get(target, property, receiver);
    },
  });
}
