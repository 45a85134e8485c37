/**
 * Run as a child process by idle-cost.test.ts: records every module URL resolved from here on, loads the
 * whole runtime and starts tracing from the environment given, then prints the @opentelemetry URLs seen.
 */
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
import type { RunStore } from '../../src/agent/ports/run-store.ts';

const seen: string[] = [];
const { port1, port2 } = new MessageChannel();
port1.on('message', (url: string) => seen.push(url));
port1.unref();
const hook = `export async function initialize({ port }) { globalThis.port = port; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  globalThis.port.postMessage(resolved.url);
  return resolved;
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`, { data: { port: port2 }, transferList: [port2] });

const { loadConfig } = await import('../../src/config/config.ts');
await import('../../src/runtime/start-tandem.ts');
const { startTracing } = await import('../../src/observability/tracing.ts');
const { createLogger } = await import('../../src/observability/logger.ts');

const config = loadConfig(process.env);
const logger = createLogger({ level: 'silent', secrets: [] });
const tracing = await startTracing({
  config, // Tracing only wraps the store when it starts; nothing here calls it.
  store: {} as RunStore,
  logger,
});
await tracing?.close();
// Let the hook thread's last messages arrive.
await new Promise((resolve) => setTimeout(resolve, 100));
process.stdout.write(JSON.stringify({ tracing: tracing !== undefined, opentelemetry: seen.filter((url) => url.includes('@opentelemetry')) }));
