/**
 * The one way to wrap a port (redaction, metrics): the methods in `overrides` replace the port's and
 * call it themselves; every other method is the port's own, unchanged. A port may be a plain object of
 * functions (as the store's factories return) or a class instance: its methods, own or inherited, are
 * bound to it and copied, not looked up through a Proxy.
 */
export function decorate<P extends object>(port: P, overrides: Partial<P>): P {
  const methods: Record<PropertyKey, unknown> = {};
  for (let layer: object | null = port; layer && layer !== Object.prototype; layer = Object.getPrototypeOf(layer) as object | null) {
    for (const key of Reflect.ownKeys(layer)) {
      if (key === 'constructor' || Object.hasOwn(methods, key)) continue;
      const value: unknown = Reflect.get(port, key);
      methods[key] = typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(port) : value;
    }
  }
  return { ...methods, ...overrides } as P;
}
