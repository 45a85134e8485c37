/** When runs are exported as traces, and that an OTLP backend's key in the exporter headers is kept out of logs. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { handOtelSettingsOn } from '../../src/config/environment.ts';
import { configProblem } from '../helpers/config-problem.ts';

describe('tracing settings', () => {
  it('is on only with an OTLP endpoint, and off again with OTEL_SDK_DISABLED or a traces exporter other than otlp', () => {
    const on = (env: Record<string, string>) => loadConfig(env).tracing.enabled;
    expect(on({})).toBe(false);
    expect(on({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(on({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(on({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'TRUE' })).toBe(false);
    expect(on({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
    expect(on({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'console,otlp' })).toBe(true);
    expect(loadConfig({}).tracing.content).toBe(false);
    expect(loadConfig({ TANDEM_TRACE_CONTENT: 'on' }).tracing.content).toBe(true);
  });

  it('reads OTEL_SDK_DISABLED as the OpenTelemetry specification says: only "true" turns it off, any other value starts the bot with tracing on', () => {
    const on = (disabled: string) => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: disabled }).tracing.enabled;
    expect(on(' True ')).toBe(false);
    expect(on('false')).toBe(true);
    expect(on('1')).toBe(true);
    expect(on('yes')).toBe(true);
    expect(on('')).toBe(true);
  });

  it('exports as protobuf (the specification’s default) unless OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL says JSON or gRPC; anything else is refused by name', () => {
    const protocol = (env: Record<string, string>) => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', ...env }).tracing.protocol;
    expect(protocol({})).toBe('http/protobuf');
    expect(protocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toBe('http/json');
    expect(protocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' })).toBe('http/protobuf');
    expect(protocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' })).toBe('http/json');
    expect(protocol({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' })).toBe('grpc');
    expect(configProblem({ OTEL_EXPORTER_OTLP_PROTOCOL: 'thrift' })).toMatch(/OTEL_EXPORTER_OTLP_PROTOCOL.*expected http\/protobuf, http\/json or grpc/);
  });

  it('refuses an endpoint that is not an http(s) URL, naming the variable', () => {
    expect(configProblem({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toMatch(/OTEL_EXPORTER_OTLP_ENDPOINT/);
    expect(configProblem({ TANDEM_TRACE_CONTENT: 'yes' })).toMatch(/TANDEM_TRACE_CONTENT.*on or off/);
  });

  it('counts the exporter header values as secrets, raw and decoded', () => {
    const { secrets } = loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-honeycomb-team=hc-key-123456,authorization=Bearer%20tok-987654',
    });
    expect(secrets).toEqual(expect.arrayContaining(['hc-key-123456', 'Bearer%20tok-987654', 'Bearer tok-987654']));
  });
});

describe('OTEL_* settings from a .env file', () => {
  it('reach the process environment the OpenTelemetry SDK reads; a real variable wins, and nothing else is copied', () => {
    const processEnv: NodeJS.ProcessEnv = { OTEL_SERVICE_NAME: 'real' };
    handOtelSettingsOn({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SERVICE_NAME: 'from-dotenv', SLACK_BOT_TOKEN: 'xoxb-1' }, processEnv);
    expect(processEnv).toEqual({ OTEL_SERVICE_NAME: 'real', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' });
  });
});
