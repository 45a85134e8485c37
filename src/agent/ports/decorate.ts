/**
 * The one way to wrap a port (redaction, metrics): the methods in `overrides` replace the port's and
 * call it themselves; every other method is the port's own, unchanged. The port must be a plain object
 * of functions (as the store's factories return), so its methods are copied, not looked up through a Proxy.
 */
export function decorate<P extends object>(port: P, overrides: Partial<P>): P {
  return { ...port, ...overrides };
}
