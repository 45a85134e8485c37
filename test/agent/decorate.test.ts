import { describe, expect, it } from 'vitest';
import { decorate } from '../../src/agent/ports/decorate.ts';

interface CounterPort {
  add(n: number): number;
  total(): number;
}

/** A port written as a class: its methods live on the prototype and use `this`. */
class Counter implements CounterPort {
  private sum = 0;
  add(n: number): number {
    this.sum += n;
    return this.sum;
  }
  total(): number {
    return this.sum;
  }
}

describe('decorate', () => {
  it('wraps a plain object: the override calls the port, the other methods are the port’s own', () => {
    let sum = 0;
    const port: CounterPort = { add: (n) => (sum += n), total: () => sum };
    const doubled = decorate(port, { add: (n) => port.add(n * 2) });
    expect(doubled.add(3)).toBe(6);
    expect(doubled.total()).toBe(6);
  });

  it('wraps a class instance: inherited methods keep their `this`, and state is the instance’s', () => {
    const counter = new Counter();
    const seen: number[] = [];
    const watched = decorate<CounterPort>(counter, {
      add: (n) => {
        seen.push(n);
        return counter.add(n);
      },
    });
    expect(watched.add(2)).toBe(2);
    expect(watched.add(5)).toBe(7);
    expect(watched.total()).toBe(7);
    expect(counter.total()).toBe(7);
    expect(seen).toEqual([2, 5]);
  });
});
