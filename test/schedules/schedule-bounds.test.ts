import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScheduleService } from '../../src/schedules/schedule-service.ts';
import { createSchedulesStore } from '../../src/store/index.ts';
import { scheduleCreation, startPolicy } from '../../src/runtime/policy/policy-wiring.ts';
import { loadPolicy } from '../../src/policy/cedar-engine.ts';
import { DEFAULT_ENGINE, openTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { approversGate } from '../helpers/policy-gate.ts';

describe('schedules are bounded (issue 32)', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase(DEFAULT_ENGINE);
  });
  afterAll(() => database.destroy());

  const service = (mayCreate?: Parameters<typeof createScheduleService>[0]['mayCreate']) =>
    createScheduleService({
      store: createSchedulesStore(database.db),
      clock: () => new Date('2026-10-30T16:00:00Z'),
      bounds: { maxPerChannel: 2, minIntervalS: 300 },
      mayCreate,
    });
  const create = (s: ReturnType<typeof service>, text: string, channel: string, createdBy = 'U1') => s.create({ text, channel, createdBy, timeZone: 'UTC' });

  it('refuses a schedule that fires more often than the shortest interval, and says why', async () => {
    expect(await create(service(), 'cron: * * * * * post the time', 'C_FAST')).toEqual({
      ok: false,
      error: '`* * * * *` fires every 1 minute; a schedule may fire at most once every 5 minutes (TANDEM_MIN_SCHEDULE_INTERVAL_S)',
    });
    expect(await create(service(), 'every 5 minutes check the status page', 'C_FAST')).toMatchObject({ ok: true });
  });

  it('refuses a schedule past the per-channel cap; another channel still has room', async () => {
    const s = service();
    expect(await create(s, 'every day at 09:00 a', 'C_CAP')).toMatchObject({ ok: true });
    expect(await create(s, 'every day at 10:00 b', 'C_CAP')).toMatchObject({ ok: true });
    expect(await create(s, 'every day at 11:00 c', 'C_CAP')).toEqual({
      ok: false,
      error: 'this channel already has 2 schedules, the most it may have (TANDEM_MAX_SCHEDULES); remove one first',
    });
    expect(await create(s, 'every day at 11:00 c', 'C_OTHER')).toMatchObject({ ok: true });
  });

  it('creating one is the `schedule` action: an approver by default, what the policy says under TANDEM_POLICY', async () => {
    const byDefault = service(scheduleCreation(approversGate(['UAPP'])));
    expect(await create(byDefault, 'every day at 09:00 x', 'C_DEFAULT', 'UDEV')).toEqual({
      ok: false,
      error: 'only approvers (TANDEM_APPROVERS) may create a schedule: each one starts runs on its own',
    });
    expect(await create(byDefault, 'every day at 09:00 x', 'C_DEFAULT', 'UAPP')).toMatchObject({ ok: true });

    const loaded = loadPolicy([
      {
        file: 'p.cedar',
        text: '@id("ops-schedules") @who("a member of @ops") @reason("Scheduling in #ops")\npermit (principal in Group::"S_OPS", action == Action::"schedule", resource is Schedule)\nwhen { resource.channel == "C_OPS" && resource.intervalSeconds >= 3600 };\n',
      },
    ]);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
    const gate = {
      current: () => loaded.value,
      groups: { groupsOf: async (user: string, among: readonly string[]) => (user === 'UOPS' ? among.filter((g) => g === 'S_OPS') : []) },
    };
    const underPolicy = service(scheduleCreation(gate));
    expect(await create(underPolicy, 'every hour check the queue', 'C_OPS', 'UAPP')).toEqual({
      ok: false,
      error: 'Scheduling in #ops needs a member of @ops (rule `ops-schedules`).',
    });
    expect(await create(underPolicy, 'every hour check the queue', 'C_OPS', 'UOPS')).toMatchObject({ ok: true });
    expect(await create(underPolicy, 'every 10 minutes check the queue', 'C_OPS', 'UOPS')).toMatchObject({ ok: false });
  });

  it('TANDEM_POLICY unset starts the built-in policy made from the settings; an invalid one stops start-up with one file:line:column line', async () => {
    const { loadConfig } = await import('../../src/config/config.ts');
    const logger = { info: () => undefined, warn: () => undefined, error: () => undefined } as never;
    const groups = { groupsOf: async () => [] };
    const builtin = startPolicy(loadConfig({ TANDEM_APPROVERS: 'U1' }), groups, logger);
    expect(builtin.gate.current().fromSettings).toBe(true);
    expect(builtin.gate.current().sources.map((source) => source.file)).toEqual(['built-in.cedar']);
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const file = `${mkdtempSync(`${tmpdir()}/policy-`)}/bad.cedar`;
    writeFileSync(file, 'permit(principal, action == Action::"aprove", resource);\n');
    expect(() => startPolicy(loadConfig({ TANDEM_POLICY: file }), groups, logger)).toThrow(
      new RegExp(`^TANDEM_POLICY: ${file}:1:29 for policy \`${file}:1\`, unrecognized action`),
    );
  });
});
