import { RES } from '@meterdesk/contracts';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../db/rows';
import { createTestApp, type TestApp } from '../test/harness';
import { runJob } from '../test/jobs';
import { ensurePartitions, partitionName } from './partitions';
import { READINGS_RETENTION_JOB } from './retention';

const monthStart = (monthsAgo: number) => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - monthsAgo, 1));
};

describe('the readings retention setting', () => {
  let t: TestApp;
  let admin: string;

  beforeAll(async () => {
    t = await createTestApp({ readingsRetentionMonths: 36 }, { jobs: true });
    admin = await t.loginAdmin();
  });
  afterAll(() => t.close());

  it('answers the READINGS_RETENTION_MONTHS default until a number is saved, and refuses an unusable one', async () => {
    expect((await t.call('/parameter/getreadingsretention', {}, admin)).body.data).toEqual({ months: 36 });
    for (const months of [0, 241, 1.5, '10', null]) {
      const refused = await t.call('/parameter/updatereadingsretention', { months }, admin);
      expect(refused.status).toBe(400);
      expect(refused.body.data).toMatchObject({ issues: [expect.objectContaining({ field: 'months' })] });
    }
    const roleId = await t.createRole('settings reader', [RES.systemSettings]);
    await t.createUser({ username: 'settingsreader', password: 'Passw0rd!', roleIds: [roleId] });
    const reader = await t.login('settingsreader', 'Passw0rd!');
    expect((await t.call('/parameter/updatereadingsretention', { months: 12 }, reader)).status).toBe(403);
    expect((await t.call('/parameter/updatereadingsretention', { months: 12 }, admin)).status).toBe(200);
    expect((await t.call('/parameter/getreadingsretention', {}, admin)).body.data).toEqual({ months: 12 });
  });

  it('the nightly job keeps the saved number of months: an older month leaves whole, a younger one stays', async () => {
    await t.call('/parameter/updatereadingsretention', { months: 12 }, admin);
    await ensurePartitions(t.db, monthStart(13), monthStart(11));
    const older = partitionName('reading_profile', monthStart(13));
    const younger = partitionName('reading_profile', monthStart(11));
    const exists = async (relation: string) =>
      (await rowsOf<{ found: boolean }>(t.db, sql`select to_regclass(${relation}) is not null as found`))[0]?.found;
    expect(await exists(older)).toBe(true);
    const olderRollups = partitionName('rollup_meter_day', monthStart(13));
    expect(await exists(olderRollups)).toBe(true);
    const job = await runJob(t, READINGS_RETENTION_JOB);
    expect((job.output as { dropped: string[] }).dropped).toEqual(expect.arrayContaining([older, olderRollups]));
    expect(await exists(older)).toBe(false);
    expect(await exists(olderRollups)).toBe(false);
    expect(await exists(younger)).toBe(true);
    expect(await exists(partitionName('rollup_meter_day', monthStart(11)))).toBe(true);
  });
});
