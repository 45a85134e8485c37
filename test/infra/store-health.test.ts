import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StoreHealth, storeFailureKind } from '../../src/store/engine/store-health.ts';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });
/** As drizzle wraps a driver's error: its message carries the statement and its parameters. */
const wrapped = (cause: Error) => Object.assign(new Error(`Failed query: insert into runs values ($1)\nparams: secret-task-text`), { cause });

describe('what counts as the store failing', () => {
  it.each([
    [withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'), 'unreachable'],
    [withCode('write CONNECTION_CLOSED 127.0.0.1:5432', 'CONNECTION_CLOSED'), 'unreachable'],
    [withCode('terminating connection due to administrator command', '57P01'), 'unreachable'],
    [withCode('the database system is starting up', '57P03'), 'unreachable'],
    [wrapped(withCode('could not extend file "base/5/1": No space left on device', '53100')), 'not-writable'],
    [withCode('cannot execute INSERT in a read-only transaction', '25006'), 'not-writable'],
    [new Error('PGlite is closed'), 'unreachable'],
    [wrapped(withCode('duplicate key value violates unique constraint', '23505')), undefined],
    [withCode('invalid input syntax for type uuid', '22P02'), undefined],
    [new Error('something else'), undefined],
  ] as const)('%s → %s', (error, kind) => {
    expect(storeFailureKind(error)).toBe(kind);
  });

  it('never throws on whatever is thrown', () => {
    fc.assert(fc.property(fc.anything(), (thrown) => [undefined, 'unreachable', 'not-writable'].includes(storeFailureKind(thrown))));
  });
});

describe('StoreHealth', () => {
  it('reports a failure with the driver’s words only, until a write works or the window passes', () => {
    let now = 0;
    const health = new StoreHealth(15_000, () => now);
    health.failed(wrapped(withCode('could not extend file "base/5/1": No space left on device', '53100')));
    expect(health.snapshot()).toEqual({
      ok: false,
      reason: 'the database cannot be written: could not extend file "base/5/1": No space left on device (53100)',
    });
    expect(health.snapshot().reason).not.toContain('secret-task-text');
    health.succeeded(false); // a read does not show the disk has room
    expect(health.snapshot().ok).toBe(false);
    health.succeeded(true);
    expect(health.snapshot()).toEqual({ ok: true });

    health.failed(withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'));
    expect(health.snapshot().reason).toMatch(/^the database is unreachable: connect ECONNREFUSED/);
    now += 15_001;
    expect(health.snapshot()).toEqual({ ok: true });
  });

  it('counts only the store’s failures', () => {
    const seen: string[] = [];
    const health = new StoreHealth();
    health.onFailure((kind) => seen.push(kind));
    health.failed(withCode('duplicate key', '23505'));
    health.failed(withCode('connect ECONNREFUSED', 'ECONNREFUSED'));
    expect(seen).toEqual(['unreachable']);
  });

  it('keeps a PGlite folder’s write failure until PGlite was restarted, however many writes worked meanwhile', () => {
    let now = 0;
    const health = new StoreHealth(15_000, () => now);
    health.writesClearNotWritable = false;
    health.failed(withCode('could not create file "base/5/16785_fsm": Permission denied', '42501'));
    health.succeeded(true); // a write into a file PGlite held open
    now = 60_000;
    expect(health.snapshot()).toEqual({
      ok: false,
      reason: 'the database cannot be written: could not create file "base/5/16785_fsm": Permission denied (42501)',
    });
    health.recovered();
    expect(health.snapshot()).toEqual({ ok: true });
  });
});
