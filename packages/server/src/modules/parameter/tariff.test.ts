import type { Meter, Page, Tariff, TariffAssociated, TouCalendar } from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../db/ids';
import { poc, sysTariffConfig, tariffUnmapped } from '../../db/schema';
import { gridNode, meterAt, userOfGrid } from '../../test/archive-fixtures';
import { createTestApp, type TestApp } from '../../test/harness';
import { fieldIssues, issuesIn } from '../../test/issues';
import { uniqueName } from '../../test/unique';

const PAGE = '/parameterSetting/tariffManagement';

/** Two rates on weekdays, one at weekends, a holiday at the weekend's profile. */
const calendar = (): TouCalendar => ({
  seasons: [
    { start: '01-01', weekId: 1 },
    { start: '06-01', weekId: 1 },
  ],
  weeks: [{ weekId: 1, days: [1, 1, 1, 1, 1, 2, 2] }],
  days: [
    {
      dayId: 1,
      switches: [
        { time: '00:00', rate: 2 },
        { time: '08:00', rate: 1 },
        { time: '20:00', rate: 2 },
      ],
    },
    { dayId: 2, switches: [{ time: '00:00', rate: 2 }] },
  ],
  specialDays: [{ date: '12-25', dayId: 2 }],
});

let t: TestApp;
let admin: string;

const input = (over: Record<string, unknown> = {}) => ({
  tariffName: uniqueName('TOU'),
  price1: 0.25,
  price2: 0.1,
  calendar: calendar(),
  ...over,
});
const save = (over: Record<string, unknown> = {}, cookie = admin) =>
  t.call<{ id: string }>('/tariff/save', input(over), cookie);
const count = async () => (await t.call<Page<Tariff>>('/tariff/list', { pageSize: 500 }, admin)).body.data.total;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.loginAdmin();
});
afterAll(() => t?.close());

describe('tariff management', () => {
  it('saves a tariff and lists it with its counts; a taken name in any case is existed', async () => {
    const name = uniqueName('Res');
    const res = await save({ tariffName: name });
    expect(res.status).toBe(200);
    const list = await t.call<Page<Tariff>>('/tariff/list', { tariffName: name }, admin);
    expect(list.body.data.list).toEqual([
      expect.objectContaining({
        tariffName: name,
        price1: 0.25,
        seasonCount: 2,
        weekCount: 1,
        dayCount: 2,
        specialDayCount: 1,
        rates: [1, 2],
      }),
    ]);
    const again = await save({ tariffName: name.toUpperCase() });
    expect(again.status).toBe(409);
    expect(issuesIn(again.body)).toEqual([expect.objectContaining({ field: 'tariffName', key: 'existed' })]);
    expect(
      (await t.call('/tariff/check', { field: 'tariffName', value: name.toLowerCase() }, admin)).body.data,
    ).toEqual({ existed: true });
  });

  it('refuses a calendar breaking its rules with every issue under its field path, and writes nothing', async () => {
    const before = await count();
    const bad = calendar();
    bad.days[0]?.switches.splice(2, 0, { time: '08:03', rate: 1 });
    bad.weeks.push({ weekId: 9, days: [1, 1, 1, 1, 1, 1, 1] });
    const res = await save({ calendar: bad });
    expect(res.status).toBe(400);
    expect(fieldIssues(res.body)).toEqual([
      ['calendar.days.0.switches.2.time', 'tariffInterval'],
      ['calendar.weeks.1.weekId', 'tariffUnreachableWeek'],
    ]);
    // The schema's own checks answer the same way.
    const unknownRate = calendar();
    unknownRate.days[1] = { dayId: 2, switches: [{ time: '00:00', rate: 5 }] };
    expect(fieldIssues((await save({ calendar: unknownRate })).body)).toEqual([
      ['calendar.days.1.switches.0.rate', 'tariffUnknownRate'],
    ]);
    expect(await count()).toBe(before);
  });

  it('refuses counts over the TOU limitation settings, naming the counted list; without settings only the rules apply', async () => {
    const [limits] = await t.db.select().from(sysTariffConfig);
    if (!limits) throw new Error('the seed saves TOU limits');
    await t.db
      .update(sysTariffConfig)
      .set({ tariffDays: 1, tariffValidCount: 1 })
      .where(eq(sysTariffConfig.id, limits.id));
    try {
      const before = await count();
      const res = await save();
      expect(res.status).toBe(400);
      expect(issuesIn(res.body)).toEqual([
        expect.objectContaining({ field: 'calendar.days', key: 'exceedingLimitation', params: { max: 1 } }),
        expect.objectContaining({ field: 'calendar.rates', key: 'exceedingLimitation', params: { max: 1 } }),
      ]);
      expect(await count()).toBe(before);
      // An edit is held to the same limits.
      await t.db.update(sysTariffConfig).set(limits).where(eq(sysTariffConfig.id, limits.id));
      const { id } = (await save()).body.data;
      await t.db.update(sysTariffConfig).set({ tariffSeasons: 1 }).where(eq(sysTariffConfig.id, limits.id));
      const edit = await t.call('/tariff/update', { id, ...input() }, admin);
      expect(fieldIssues(edit.body)).toEqual([['calendar.seasons', 'exceedingLimitation']]);

      await t.db.delete(sysTariffConfig);
      expect((await save()).status).toBe(200);
    } finally {
      await t.db.delete(sysTariffConfig);
      await t.db.insert(sysTariffConfig).values(limits);
    }
  });

  it("lists the meters and POCs using a tariff within the caller's scope, and keeps a tariff in use", async () => {
    const { id } = (await save()).body.data;
    const mine = await gridNode(t);
    const other = await gridNode(t);
    const inScope = await meterAt(t, mine);
    const outside = await meterAt(t, other);
    const pocNo = uniqueName('P');
    expect((await setMeterTariff(inScope, mine, id)).status).toBe(200);
    expect((await setMeterTariff(outside, other, id)).status).toBe(200);
    await t.db.insert(poc).values({ id: newId(), pocNo, nature: 1, meterId: inScope.id, tariffId: id, gridId: mine });
    const user = await userOfGrid(t, mine, [`${PAGE}/Associated`]);
    const meters = await t.call<Page<TariffAssociated>>('/tariff/associated', { id }, user);
    expect(meters.body.data.list).toEqual([
      expect.objectContaining({ kind: 'meter', id: inScope.id, devAddr: inScope.devAddr, pocNo, syncStatus: null }),
    ]);
    const pocs = await t.call<Page<TariffAssociated>>('/tariff/associated', { id, kind: 'poc' }, user);
    expect(pocs.body.data.list).toEqual([
      expect.objectContaining({ kind: 'poc', pocNo, devAddr: inScope.devAddr, syncStatus: 0 }),
    ]);
    expect((await t.call('/tariff/associated', { id: newId() }, user)).status).toBe(404);
    expect((await t.call('/tariff/list', {}, user)).status).toBe(403);

    const removed = await t.call<{ deleted: number; failures: { key: string }[] }>(
      '/tariff/delete',
      { ids: [id] },
      admin,
    );
    expect(removed.body.data).toMatchObject({ deleted: 0, failures: [{ id, key: 'tariffInUse' }] });
    expect((await meterRecord(inScope.id)).tariffName).toBe((await tariffRecord(id)).tariffName);
  });

  it('maps the tariff texts meters held before tariffs were records when a tariff of that name is saved', async () => {
    const grid = await gridNode(t);
    const known = await meterAt(t, grid);
    const unknown = await meterAt(t, grid);
    const text = uniqueName('legacy');
    // As migration 0040 leaves them.
    await t.db.insert(tariffUnmapped).values([
      { id: newId(), meterId: known.id, text: text.toLowerCase() },
      { id: newId(), meterId: unknown.id, text: 'no such tariff' },
    ]);
    const { id } = (await save({ tariffName: text.toUpperCase() })).body.data;
    expect((await meterRecord(known.id)).tariffId).toBe(id);
    expect((await meterRecord(unknown.id)).tariffId).toBeNull();
    const left = await t.db.select({ meterId: tariffUnmapped.meterId, text: tariffUnmapped.text }).from(tariffUnmapped);
    expect(left).toContainEqual({ meterId: unknown.id, text: 'no such tariff' });
    expect(left.map((r) => r.meterId)).not.toContain(known.id);
  });

  it("a meter's tariff is a tariff: another id is refused naming the field", async () => {
    const grid = await gridNode(t);
    const res = await setMeterTariff(await meterAt(t, grid), grid, newId());
    expect(res.status).toBe(400);
    expect(fieldIssues(res.body)).toEqual([['tariffId', 'tariffNotFound']]);
  });
});

async function tariffRecord(id: string): Promise<Tariff> {
  return (await t.call<Tariff>('/tariff/detail', { id }, admin)).body.data;
}

async function meterRecord(id: string): Promise<Meter> {
  return (await t.call<Meter>('/meter/detail', { id }, admin)).body.data;
}

/** A meter's edit giving it a tariff. */
const setMeterTariff = (m: { id: string; devAddr: string }, gridId: string, tariffId: string) =>
  t.call('/meter/update', { id: m.id, devAddr: m.devAddr, gridId, tariffId }, admin);
