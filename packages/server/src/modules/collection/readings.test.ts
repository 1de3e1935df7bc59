import { METER_RES, type MeterEventRow, type MeterFrozen, type MeterProfile, OBIS } from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { obisItem } from '../../db/schema';
import { dailyRows, meterEventRows, profileRows } from '../../readings/rows';
import { ReadingWriter } from '../../readings/writer';
import { gridNode, meterAt, userOfGrid } from '../../test/archive-fixtures';
import { createTestApp, type TestApp } from '../../test/harness';
import { fieldIssues } from '../../test/issues';

const DAY = '2026-10-31';
const at = (day: string, minutes: number) => new Date(Date.parse(`${day}T00:00:00Z`) + minutes * 60_000).toISOString();
const utcToday = () => new Date().toISOString().slice(0, 10);
const utcTomorrow = () => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

describe("a meter's readings", () => {
  let t: TestApp;
  let admin: string;
  let scoped: string;
  let mine: string;
  let theirs: string;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
    const gridA = await gridNode(t);
    const gridB = await gridNode(t);
    mine = (await meterAt(t, gridA)).id;
    theirs = (await meterAt(t, gridB)).id;
    scoped = await userOfGrid(t, gridA, [METER_RES.page, METER_RES.detail]);
    const writer = new ReadingWriter(t.db);
    // A whole day of 15-minute captures stamped with their interval's end (00:15 … 24:00), and the
    // one of 00:00, which closes the day before.
    const intervals = Array.from({ length: 97 }, (_, i) => ({
      ts: at(DAY, i * 15),
      values: {
        [OBIS.activeImport]: 1_000_000 + i * 250,
        [OBIS.activePower]: 1000 + i,
        [OBIS.voltageL1]: 2305,
        [OBIS.currentL1]: 4350,
      },
    }));
    await writer.write({
      profile: [...profileRows(mine, intervals), ...profileRows(theirs, intervals)],
      daily: dailyRows(mine, [
        { ts: at('2026-10-30', 0), values: { [OBIS.activeImport]: 990_000, [OBIS.maxDemand]: 3200 } },
        { ts: at('2026-11-01', 0), values: { [OBIS.activeImport]: 1_024_000, [OBIS.maxDemand]: 4100 } },
      ]),
      meterEvents: meterEventRows(mine, [
        { code: 1, level: 'severe', time: at(DAY, 61) },
        { code: 2, level: 'regular', time: at(DAY, 65), data: { phases: 3 } },
        { code: 9999, level: 'medium', time: at('2026-10-01', 1) },
      ]),
    });
  });
  afterAll(() => t.close());

  it("answers one day's profile, 96 intervals, scaled by the OBIS catalogue", async () => {
    const res = await t.call<MeterProfile>('/readings/profile', { meterId: mine, day: DAY }, admin);
    expect(res.status).toBe(200);
    const profile = res.body.data;
    expect(profile.expected).toBe(96);
    expect(profile.rows).toHaveLength(96);
    expect(profile.rows[0]?.ts).toBe(`${DAY}T00:15:00.000Z`);
    expect(profile.rows[95]?.ts).toBe(at(DAY, 24 * 60));
    expect(profile.rows[0]?.values).toEqual({
      activeImport: 1_000_250,
      activeExport: null,
      reactiveImport: null,
      reactiveExport: null,
      activePower: 1001,
      voltageL1: 230.5,
      currentL1: 4.35,
    });
    expect(Object.fromEntries(profile.channels.map((c) => [c.key, c.unit]))).toMatchObject({
      activeImport: 'Wh',
      activePower: 'W',
      voltageL1: 'V',
      currentL1: 'A',
    });

    // The catalogue is read with the rows: an operator's new scaler shows on the next read.
    await t.db.update(obisItem).set({ scaler: -3 }).where(eq(obisItem.obis, OBIS.activeImport));
    const rescaled = await t.call<MeterProfile>('/readings/profile', { meterId: mine, day: DAY }, admin);
    expect(rescaled.body.data.rows[0]?.values.activeImport).toBe(1000.25);
    await t.db.update(obisItem).set({ scaler: 0 }).where(eq(obisItem.obis, OBIS.activeImport));

    const empty = await t.call<MeterProfile>('/readings/profile', { meterId: mine, day: '2026-10-01' }, admin);
    expect(empty.body.data.rows).toEqual([]);
    expect((await t.call('/readings/profile', { meterId: mine, day: utcToday() }, admin)).status).toBe(200);
  });

  it('answers the daily frozen values of a range, and the events newest first with their names', async () => {
    const daily = await t.call<MeterFrozen>(
      '/readings/daily',
      { meterId: mine, startDay: '2026-10-01', endDay: '2026-10-31' },
      admin,
    );
    expect(daily.body.data.rows.map((r) => [r.day, r.values.activeImport, r.values.maxDemand])).toEqual([
      ['2026-10-29', 990_000, 3200],
      ['2026-10-31', 1_024_000, 4100],
    ]);
    // Maximum demand is stored in W and says so, like the energy registers say Wh.
    expect(Object.fromEntries(daily.body.data.channels.map((c) => [c.key, c.unit]))).toMatchObject({
      activeImport: 'Wh',
      reactiveImport: 'varh',
      maxDemand: 'W',
    });
    const monthly = await t.call<MeterFrozen>(
      '/readings/monthly',
      { meterId: mine, startDay: '2026-01-01', endDay: '2026-10-31' },
      admin,
    );
    expect(monthly.body.data.rows).toEqual([]);
    const events = await t.call<MeterEventRow[]>(
      '/readings/events',
      { meterId: mine, startDay: DAY, endDay: DAY },
      admin,
    );
    expect(events.body.data.map((e) => [e.time, e.code, e.name, e.level, e.data])).toEqual([
      [at(DAY, 65), 2, 'Power up', 'regular', { phases: 3 }],
      [at(DAY, 61), 1, 'Power down', 'severe', null],
    ]);
    const unknown = await t.call<MeterEventRow[]>(
      '/readings/events',
      { meterId: mine, startDay: '2026-10-01', endDay: '2026-10-01' },
      admin,
    );
    expect(unknown.body.data.map((e) => [e.code, e.name, e.level])).toEqual([[9999, '', 'medium']]);
  });

  it("answers 404 for a meter outside the caller's grid, as for one that does not exist", async () => {
    expect((await t.call('/readings/profile', { meterId: mine, day: DAY }, scoped)).status).toBe(200);
    for (const path of ['/readings/profile', '/readings/daily', '/readings/monthly', '/readings/events']) {
      const body = { meterId: theirs, day: DAY, startDay: DAY, endDay: DAY };
      const { day, startDay, endDay, ...rest } = body;
      const query = path === '/readings/profile' ? { ...rest, day } : { ...rest, startDay, endDay };
      expect((await t.call(path, query, scoped)).status, path).toBe(404);
      expect((await t.call(path, { ...query, meterId: 'f'.repeat(32) }, admin)).status, path).toBe(404);
    }
  });

  it('refuses a day after today, a reversed or too long range and a date that does not exist, naming the field', async () => {
    const refused = async (path: string, body: object) => {
      const res = await t.call(path, { meterId: mine, ...body }, admin);
      expect(res.status, JSON.stringify(body)).toBe(400);
      return fieldIssues(res.body);
    };
    expect(await refused('/readings/profile', { day: utcTomorrow() })).toEqual([['day', 'dateAfterToday']]);
    expect(await refused('/readings/profile', { day: '2026-02-30' })).toEqual([['day', 'invalidDate']]);
    expect(await refused('/readings/profile', { day: '31/10/2026' })).toEqual([['day', 'invalidDate']]);
    expect(await refused('/readings/profile', {})).toEqual([['day', 'mandatory']]);
    expect(await refused('/readings/daily', { startDay: '2026-10-02', endDay: '2026-10-01' })).toEqual([
      ['startDay', 'timeRangeInvalid'],
    ]);
    expect(await refused('/readings/daily', { startDay: '2026-01-01', endDay: '2026-10-01' })).toEqual([
      ['endDay', 'timeRangeTooLong'],
    ]);
    expect(await refused('/readings/events', { startDay: '2026-09-01', endDay: '2026-10-02' })).toEqual([
      ['endDay', 'timeRangeTooLong'],
    ]);
    expect(await refused('/readings/monthly', { startDay: '2026-01-01', endDay: utcTomorrow() })).toEqual([
      ['endDay', 'dateAfterToday'],
    ]);
    // The limits are inclusive: 31 whole days of events, 92 of daily values.
    expect(
      (await t.call('/readings/events', { meterId: mine, startDay: '2026-10-01', endDay: '2026-10-31' }, admin)).status,
    ).toBe(200);
  });
});
