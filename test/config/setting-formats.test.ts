import { describe, expect, it } from 'vitest';
import { stepTimeoutMs, runTimeLeftMs } from '../../src/agent/model/budgets.ts';
import { loadConfig } from '../../src/config/config.ts';
import { isAllowedHost } from '../../src/integrations/http/allow-list.ts';
import { configProblem } from '../helpers/config-problem.ts';

describe('numeric settings', () => {
  it.each([
    ['PORT', '0x1F90'],
    ['PORT', '1e3'],
    ['PORT', '0b11'],
    ['PORT', '8080.0'],
    ['PORT', '-1'],
    ['TANDEM_CONFIDENCE_THRESHOLD', '0x1'],
    ['TANDEM_CONFIDENCE_THRESHOLD', '5e-1'],
    ['TANDEM_CONFIDENCE_THRESHOLD', 'Infinity'],
    ['TANDEM_MAX_STEPS', '1e1'],
    ['TANDEM_MAX_REPLANS', '0x2'],
    ['TANDEM_MAX_TOKENS', '2e5'],
    ['TANDEM_RUN_TIMEOUT_S', '0x10'],
    ['TANDEM_STEP_TIMEOUT_S', '6e2'],
    ['TANDEM_REMIND_AFTER_S', '0o17'],
    ['TANDEM_APPROVAL_TTL_S', '99999999999999999999'],
  ])('refuse %s=%s: plain decimal only', (variable, value) => {
    expect(configProblem({ [variable]: value })).toMatch(new RegExp(`^${variable}: expected [^\\n]+$`));
  });

  it('read plain decimal values, spaces around them ignored', () => {
    const config = loadConfig({ PORT: '08080', TANDEM_CONFIDENCE_THRESHOLD: '.75', TANDEM_MAX_REPLANS: '0', TANDEM_MAX_STEPS: ' 12 ' });
    expect(config.port).toBe(8080);
    expect(config.confidenceThreshold).toBe(0.75);
    expect(config.budgets.maxReplans).toBe(0);
    expect(config.budgets.maxSteps).toBe(12);
    expect(configProblem({ PORT: '0x1F90' })).toBe('PORT: expected a port number from 0 to 65535, in decimal digits');
  });
});

describe('run and step timeouts', () => {
  const NODE_TIMER_MAX_MS = 2 ** 31 - 1;

  it.each(['TANDEM_STEP_TIMEOUT_S', 'TANDEM_RUN_TIMEOUT_S'])('%s above what a Node timer holds stops start-up in one line', (variable) => {
    expect(configProblem({ [variable]: '3000000' })).toBe(
      `${variable}: expected whole seconds from 1 to 2147483 (about 24 days, the longest timer Node.js can set)`,
    );
    expect(configProblem({ [variable]: '2147484' })).toMatch(new RegExp(`^${variable}: expected whole seconds`));
  });

  it('the longest accepted timeouts still fit the timers they become', () => {
    const { budgets } = loadConfig({ TANDEM_STEP_TIMEOUT_S: '2147483', TANDEM_RUN_TIMEOUT_S: '2147483' });
    const now = new Date();
    expect(stepTimeoutMs(budgets)).toBeLessThanOrEqual(NODE_TIMER_MAX_MS);
    // The executor wakes 5 ms after the run's wall clock runs out.
    expect(runTimeLeftMs(budgets, now, now) + 5).toBeLessThanOrEqual(NODE_TIMER_MAX_MS);
  });
});

describe('DATABASE_URL', () => {
  it.each([
    ['a port that is not a number', 'postgres://postgres:hunter2secret@127.0.0.1:abc/test', /the port must be a number/],
    ['a port out of range', 'postgres://postgres:hunter2secret@db:70000/test', /the port must be a number/],
    ['a bad port on a second host', 'postgres://postgres:hunter2secret@db1:5432,db2:x/test', /the port must be a number/],
    ['a host that does not decode', 'postgres://%%%/x', /the host has a %/],
    ['a password that does not decode', 'postgres://postgres:hunter2secret%zz@db/test', /the user name or password has a %/],
    ['no host after the user', 'postgres://postgres:hunter2secret@/test', /does not parse/],
    ['another scheme', 'mysql://postgres:hunter2secret@db/test', /URL$/],
  ])('with %s stops start-up in one line that never shows the password', (_case, url, detail) => {
    const message = configProblem({ DATABASE_URL: url });
    expect(message).toMatch(/^DATABASE_URL: expected a postgres:\/\/user:password@host:port\/db URL[^\n]*$/);
    expect(message).toMatch(detail);
    expect(message).not.toContain('hunter2secret');
  });

  it.each([
    'postgres://postgres@127.0.0.1:5432/test',
    'postgresql://user:p%40ss@db.internal/tandem?sslmode=require',
    'postgres://user:pass@db1:5432,db2:5433/tandem',
    'postgres:///tandem?host=/var/run/postgresql',
  ])('accepts %s, as the driver reads it', (url) => {
    expect(loadConfig({ DATABASE_URL: url }).database.url).toBe(url);
  });
});

describe('TANDEM_HTTP_ALLOW', () => {
  it.each([
    'https://status.example.com',
    'status.example.com/',
    'status.example.com/health',
    '*.example.com',
    'user@status.example.com',
    'status.example.com:0',
    'status.example.com:https',
    '010.0.0.1',
  ])('refuses %s, which could never match, in one line naming it', (entry) => {
    expect(configProblem({ TANDEM_HTTP_ALLOW: `api.example.com,${entry}` })).toBe(
      `TANDEM_HTTP_ALLOW: expected hosts like status.example.com, host:port or host:*, comma-separated, not URLs; ${JSON.stringify(entry.replace('user@', '…@'))} is not one`,
    );
  });

  it('names a pasted URL without its user:password@', () => {
    const problem = configProblem({ TANDEM_HTTP_ALLOW: 'https://ops:hunter2@status.example.com/health' });
    expect(problem).toContain('"https://…@status.example.com/health"');
    expect(problem).not.toContain('hunter2');
  });

  it.each([
    ['status.example.com', 'https://status.example.com/health'],
    ['Status.Example.com:8443', 'https://status.example.com:8443/'],
    ['127.0.0.1:*', 'http://127.0.0.1:3000/healthz'],
    ['[::1]:8080', 'http://[::1]:8080/'],
  ])('keeps %s, which lets %s through', (entry, url) => {
    const { httpAllow } = loadConfig({ TANDEM_HTTP_ALLOW: entry });
    expect(isAllowedHost(new URL(url), httpAllow)).toBe(true);
  });
});

describe('TANDEM_ATTRIBUTION', () => {
  it('is on unless set to off; anything else stops start-up naming the variable', () => {
    expect(loadConfig({}).attribution).toBe(true);
    expect(loadConfig({ TANDEM_ATTRIBUTION: 'on' }).attribution).toBe(true);
    expect(loadConfig({ TANDEM_ATTRIBUTION: 'off' }).attribution).toBe(false);
    expect(configProblem({ TANDEM_ATTRIBUTION: 'yes' })).toBe('TANDEM_ATTRIBUTION: expected on or off');
  });
});

describe('TANDEM_SHOW_COST', () => {
  it('is off unless set: the summary shows no cost; true or 1 turns it on; anything else names the variable', () => {
    expect(loadConfig({}).showCost).toBe(false);
    expect(loadConfig({ TANDEM_SHOW_COST: 'true' }).showCost).toBe(true);
    expect(loadConfig({ TANDEM_SHOW_COST: '1' }).showCost).toBe(true);
    expect(loadConfig({ TANDEM_SHOW_COST: 'false' }).showCost).toBe(false);
    expect(configProblem({ TANDEM_SHOW_COST: 'yes' })).toBe('TANDEM_SHOW_COST: expected true or false');
  });
});
