import { once } from 'node:events';
import { createConnection, createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { AckFirst } from '../../src/bot/ingress/ack-first.ts';

describe('AckFirst', () => {
  it('holds work after an ack until every request received is acknowledged, then lets it go at once', async () => {
    const gate = new AckFirst(10_000);
    const first = gate.received();
    const second = gate.received();
    first();
    let resumed = false;
    const work = gate.othersAcked().then(() => (resumed = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(resumed).toBe(false);
    first(); // saying it twice counts once
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(resumed).toBe(false);
    second();
    await work;
    expect(resumed).toBe(true);
  });

  it('holds the work again for a request that arrives while it is being let go: a burst read over several turns is acknowledged first', async () => {
    const gate = new AckFirst(10_000);
    const first = gate.received();
    let resumed = false;
    const work = gate.othersAcked().then(() => (resumed = true));
    first();
    const late = gate.received(); // read in the I/O turn the released work yields to
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(resumed).toBe(false);
    late();
    await work;
    expect(resumed).toBe(true);
  });

  it('holds the work while requests keep arriving, even when each is acknowledged in the turn it is read (an inbox that answers at once)', async () => {
    const gate = new AckFirst(10_000);
    gate.received()();
    const order: string[] = [];
    const work = gate.othersAcked().then(() => order.push('work'));
    // A request read and acknowledged while the work waits for its turn, and another read in the turn after.
    queueMicrotask(() => {
      gate.received()();
      order.push('second acked');
      setImmediate(() => (gate.received()(), order.push('third acked')));
    });
    await work;
    expect(order).toEqual(['second acked', 'third acked', 'work']);
  });

  it('holds the work while the rest of a burst is still on its way: a request read in a later turn of I/O is acknowledged before it', async () => {
    const gate = new AckFirst(10_000, 200);
    gate.received()();
    const order: string[] = [];
    const work = gate.othersAcked().then(() => order.push('work'));
    // The rest of the burst, read a moment later (the timer stands for the socket's next read, after a poll).
    setTimeout(() => (gate.received()(), order.push('second acked')), 1);
    await work;
    expect(order).toEqual(['second acked', 'work']);
  });

  it('holds the work when the process was paused past the quiet window while the rest of a burst reached its socket', async () => {
    const gate = new AckFirst(10_000, 200);
    const order: string[] = [];
    const server = createServer((socket) => socket.on('data', () => (gate.received()(), order.push('second acked'))));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const sender = createConnection((server.address() as AddressInfo).port, '127.0.0.1');
    await once(sender, 'connect');
    try {
      gate.received()();
      const work = gate.othersAcked().then(() => order.push('work'));
      // The rest of the burst reaches the socket while the process is paused (a collection, or the machine running
      // something else) past the quiet window, after a poll: the loop's next turn runs its timers before it reads.
      setTimeout(() => {
        setImmediate(() => {
          sender.write('the rest of the burst');
          const until = performance.now() + 250;
          while (performance.now() < until);
        });
      }, 100);
      await work;
      expect(order).toEqual(['second acked', 'work']);
    } finally {
      sender.destroy();
      server.close();
    }
  });

  it('never holds work longer than its limit', async () => {
    const gate = new AckFirst(30);
    gate.received();
    const started = Date.now();
    await gate.othersAcked();
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
  });
});
