import {
  ALARM_DAYS,
  type AlarmPage,
  type AlarmTrend,
  type ArchiveSummary,
  type CollectionKpi,
  type ConsumerSummary,
  DASHBOARD_CARD_KEYS,
  DASHBOARD_CARDS,
  dashboardApi,
  deviceTopic,
  type EnergySummary,
  type ModuleSummary,
  OBIS,
  type OperationLog,
  RES,
} from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeLog } from '../../audit/audit.repository';
import { newId } from '../../db/ids';
import { commModule, consumer, meter, powerGrid, sysOrg } from '../../db/schema';
import { ROOT_ORG_ID } from '../../db/seeded-ids';
import { foldPending } from '../../readings/rollups';
import { profileRows } from '../../readings/rows';
import { ReadingWriter } from '../../readings/writer';
import { consumerAt, dcuAt, meterAt, userOfGrid } from '../../test/archive-fixtures';
import { createTestApp, type TestApp } from '../../test/harness';
import { fieldIssues } from '../../test/issues';
import { uniqueName } from '../../test/unique';

const DAY_MS = 86_400_000;
const daysAgo = (n: number) => new Date(Date.now() - n * DAY_MS).toISOString().slice(0, 10);
const at = (day: string, time: string) => new Date(`${day}T${time}Z`);
const intervals = (day: string) =>
  Array.from({ length: 96 }, (_, i) => ({
    ts: new Date(Date.parse(`${day}T00:00:00Z`) + (i + 1) * 15 * 60_000).toISOString(),
    values: { [OBIS.activePower]: 400 },
  }));
const CARD_PATHS = DASHBOARD_CARD_KEYS.map((key) => dashboardApi[key].path);
/** Every page a card summarises, once. */
const CARD_PAGES = [...new Set(Object.values(DASHBOARD_CARDS))];

describe('the dashboard cards', () => {
  let t: TestApp;
  let admin: string;
  /** A user of the "mine" region only, holding every card. */
  let mine: string;
  const grid = { region: '', feeder: '', other: '' };
  const meters: Record<'a' | 'b' | 'c' | 'd' | 'x', { id: string; devAddr: string }> = {} as never;
  const yesterday = daysAgo(1);

  const node = async (name: string, parentId = '0') => {
    const id = newId();
    await t.db.insert(powerGrid).values({ id, gridCode: uniqueName('G').toUpperCase(), gridName: name, parentId });
    return id;
  };
  const setMeter = (id: string, values: Partial<typeof meter.$inferInsert>) =>
    t.db.update(meter).set(values).where(eq(meter.id, id));
  const moduleAt = (gridId: string, deviceType: number, workingMode: string) =>
    t.db.insert(commModule).values({ id: newId(), moduleNo: uniqueName('MOD'), deviceType, workingMode, gridId });

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
    // "mine": a region and its feeder; "other": a region the scoped user cannot see.
    grid.region = await node('Mine region');
    grid.feeder = await node('Mine feeder', grid.region);
    grid.other = await node('Other region');
    const feederDcu = await dcuAt(t, grid.feeder);
    await dcuAt(t, grid.other);
    meters.a = await meterAt(t, grid.region);
    meters.b = await meterAt(t, grid.region);
    meters.c = await meterAt(t, grid.feeder, undefined, feederDcu.id);
    meters.d = await meterAt(t, grid.feeder);
    meters.x = await meterAt(t, grid.other);
    await setMeter(meters.a.id, { status: 2 });
    // A virtual meter is counted in the archive but never expected to report.
    await setMeter(meters.b.id, { status: 1, virtual: true });
    await setMeter(meters.c.id, { status: 3 });
    await setMeter(meters.x.id, { status: 2 });
    await consumerAt(t, grid.region);
    await consumerAt(t, grid.feeder);
    const stranger = await consumerAt(t, grid.other);
    await t.db
      .update(consumer)
      .set({ consumerType: 'commercial', paymentMode: 'postpay', special: true })
      .where(eq(consumer.id, stranger.id));
    await moduleAt(grid.region, 2, 'server');
    await moduleAt(grid.feeder, 4, 'client');
    await moduleAt(grid.other, 3, 'webService');

    const severe = (m: { id: string }, ts: Date, code: number) => ({ meterId: m.id, ts, code, level: 2 });
    await new ReadingWriter(t.database).write({
      profile: profileRows(meters.a.id, intervals(yesterday)),
      daily: [
        { meterId: meters.a.id, day: daysAgo(3), activeImport: 1000 },
        { meterId: meters.a.id, day: daysAgo(2), activeImport: 1500 },
        { meterId: meters.a.id, day: yesterday, activeImport: 2300 },
        { meterId: meters.x.id, day: daysAgo(2), activeImport: 0 },
        { meterId: meters.x.id, day: yesterday, activeImport: 10_000 },
      ],
      meterEvents: [
        severe(meters.a, at(yesterday, '12:00:00'), 1),
        { meterId: meters.a.id, ts: at(yesterday, '12:05:00'), code: 2, level: 0 },
        severe(meters.a, at(daysAgo(5), '08:00:00'), 40),
        {
          meterId: meters.c.id,
          ts: new Date(Math.max(Date.parse(`${daysAgo(0)}T00:00:01Z`), Date.now() - 60_000)),
          code: 6,
          level: 1,
        },
        // Older than the alarm log looks back.
        severe(meters.a, at(daysAgo(ALARM_DAYS + 2), '08:00:00'), 44),
        severe(meters.x, at(yesterday, '13:00:00'), 44),
      ],
    });
    await foldPending(t.db);
    mine = await userOfGrid(t, grid.region, [RES.dashboard, ...CARD_PAGES]);
  });
  afterAll(() => t.close());

  it('answers a card only to a user holding both the dashboard and the page the card summarises', async () => {
    const dashboardOnly = await userOfGrid(t, grid.region, [RES.dashboard]);
    const cardsOnly = await userOfGrid(t, grid.region, CARD_PAGES);
    const alarmsOnly = await userOfGrid(t, grid.region, [RES.dashboard, DASHBOARD_CARDS.alarms]);
    for (const path of CARD_PATHS) {
      expect((await t.call(path, {}, dashboardOnly)).status, path).toBe(403);
      expect((await t.call(path, {}, cardsOnly)).status, path).toBe(403);
      expect((await t.call(path, {}, mine)).status, path).toBe(200);
    }
    expect((await t.call('/dashboard/alarms', {}, alarmsOnly)).status).toBe(200);
    expect((await t.call('/dashboard/alarmtrend', {}, alarmsOnly)).status).toBe(200);
    expect((await t.call('/dashboard/archive', {}, alarmsOnly)).status).toBe(403);
  });

  it("counts the archive of the caller's grid nodes", async () => {
    const archive = async (cookie: string) =>
      (await t.call<ArchiveSummary>('/dashboard/archive', {}, cookie)).body.data;
    const statuses = (summary: ArchiveSummary) =>
      Object.fromEntries(summary.byStatus.filter((s) => s.count > 0).map((s) => [s.status, s.count]));
    const mineNow = await archive(mine);
    expect(mineNow).toMatchObject({ gridNodes: 2, dcus: 1, meters: 4 });
    // Every status is listed, in order; the virtual meter counts with the others.
    expect(mineNow.byStatus.map((s) => s.status)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(statuses(mineNow)).toEqual({ 0: 1, 1: 1, 2: 1, 3: 1 });
    const all = await archive(admin);
    expect(all).toMatchObject({ dcus: 2, meters: 5 });
    expect(statuses(all)).toEqual({ 0: 1, 1: 1, 2: 2, 3: 1 });
  });

  it("summarises the consumers and modules of the caller's grid nodes", async () => {
    const consumers = (await t.call<ConsumerSummary>('/dashboard/consumers', {}, mine)).body.data;
    expect(consumers).toEqual({
      consumers: 2,
      byType: [
        { consumerType: 'residential', count: 2 },
        { consumerType: 'commercial', count: 0 },
        { consumerType: 'industrial', count: 0 },
      ],
      byPayment: [
        { paymentMode: 'prepay', count: 2 },
        { paymentMode: 'postpay', count: 0 },
      ],
      special: 0,
    });
    const everyone = (await t.call<ConsumerSummary>('/dashboard/consumers', {}, admin)).body.data;
    expect(everyone).toMatchObject({ consumers: 3, special: 1 });
    const modules = (await t.call<ModuleSummary>('/dashboard/modules', {}, mine)).body.data;
    expect(modules).toEqual({
      modules: 2,
      byDeviceType: [
        { deviceType: 2, count: 1 },
        { deviceType: 4, count: 1 },
      ],
      byWorkingMode: [
        { workingMode: 'client', count: 1 },
        { workingMode: 'server', count: 1 },
        { workingMode: 'webService', count: 0 },
      ],
    });
  });

  it("gives yesterday's, the day before's and this month's energy of the caller's meters", async () => {
    const energy = (await t.call<EnergySummary>('/dashboard/energy', {}, mine)).body.data;
    // kWh, as the consumption pages give it: the registers hold Wh.
    expect(energy.yesterday).toEqual({ day: yesterday, value: 0.8, meters: 1 });
    expect(energy.dayBefore).toEqual({ day: daysAgo(2), value: 0.5, meters: 1 });
    const monthStart = `${daysAgo(0).slice(0, 7)}-01`;
    const inMonth = [
      [daysAgo(2), 500],
      [yesterday, 800],
    ].filter(([day]) => (day as string) >= monthStart);
    expect(energy.month).toEqual({
      startDay: monthStart,
      endDay: daysAgo(0),
      value: inMonth.length ? inMonth.reduce((sum, [, wh]) => sum + (wh as number), 0) / 1000 : null,
    });
    expect(energy.days[0]?.day).toBe(monthStart);
    expect(energy.days.at(-1)).toEqual({ day: daysAgo(0), value: null, meters: 0 });
    // The other region's 10 kWh are the administrator's alone.
    const all = (await t.call<EnergySummary>('/dashboard/energy', {}, admin)).body.data;
    expect(all.yesterday).toEqual({ day: yesterday, value: 10.8, meters: 2 });
  });

  it("gives today's and yesterday's read success as the collection report counts it", async () => {
    const kpi = (await t.call<CollectionKpi>('/dashboard/collection', {}, mine)).body.data;
    // Meters a and c are expected to report (b is virtual, d in the warehouse): 96 of 192 intervals.
    expect(kpi.yesterday).toEqual({
      day: yesterday,
      meters: 2,
      expected: 192,
      stored: 96,
      successRate: 50,
      metersComplete: 1,
    });
    expect(kpi.today).toMatchObject({ day: daysAgo(0), meters: 2, stored: 0 });
    const all = (await t.call<CollectionKpi>('/dashboard/collection', {}, admin)).body.data;
    expect(all.yesterday).toMatchObject({ meters: 3, stored: 96 });
  });

  it('draws the last 30 days of events by level, every day present', async () => {
    const trend = (await t.call<AlarmTrend>('/dashboard/alarmtrend', {}, mine)).body.data;
    expect(trend.days).toHaveLength(ALARM_DAYS);
    expect(trend.days[0]?.day).toBe(daysAgo(ALARM_DAYS - 1));
    expect(trend.days.at(-1)?.day).toBe(daysAgo(0));
    const busy = trend.days.filter((d) => d.regular + d.medium + d.severe > 0);
    expect(busy).toEqual([
      { day: daysAgo(5), regular: 0, medium: 0, severe: 1 },
      { day: yesterday, regular: 1, medium: 0, severe: 1 },
      { day: daysAgo(0), regular: 0, medium: 1, severe: 0 },
    ]);
    const all = (await t.call<AlarmTrend>('/dashboard/alarmtrend', {}, admin)).body.data;
    expect(all.days.find((d) => d.day === yesterday)).toMatchObject({ severe: 2 });
  });

  it("pages the caller's unacknowledged severe events, newest first", async () => {
    const alarms = async (body: object, cookie = mine) =>
      (await t.call<AlarmPage>('/dashboard/alarms', body, cookie)).body.data;
    const first = await alarms({ pageSize: 1 });
    expect(first).toMatchObject({ curPage: 1, pageSize: 1, more: true, total: 2 });
    expect(first.list).toEqual([
      {
        meterId: meters.a.id,
        devAddr: meters.a.devAddr,
        gridName: 'Mine region',
        time: at(yesterday, '12:00:00').toISOString(),
        code: 1,
        name: 'Power down',
      },
    ]);
    const second = await alarms({ pageSize: 1, curPage: 2 });
    expect(second).toMatchObject({ more: false, total: 2 });
    expect(second.list.map((a) => [a.devAddr, a.code])).toEqual([[meters.a.devAddr, 40]]);
    expect((await alarms({ pageSize: 1, curPage: 3 })).list).toEqual([]);
    const all = await alarms({}, admin);
    expect(all).toMatchObject({ pageSize: 5, more: false, total: 3 });
    expect(all.list.map((a) => [a.devAddr, a.code])).toEqual([
      [meters.x.devAddr, 44],
      [meters.a.devAddr, 1],
      [meters.a.devAddr, 40],
    ]);

    // An acknowledged event is no longer an alarm: it leaves the page and the total at once.
    const acknowledged = await t.call(
      '/analytics/meterEvents/acknowledge',
      { events: [{ meterId: meters.x.id, time: at(yesterday, '13:00:00').toISOString(), code: 44 }], remark: 'Seen' },
      admin,
    );
    expect(acknowledged.body).toMatchObject({ data: { acknowledged: 1 } });
    const after = await alarms({}, admin);
    expect(after).toMatchObject({ more: false, total: 2 });
    expect(after.list.map((a) => [a.devAddr, a.code])).toEqual([
      [meters.a.devAddr, 1],
      [meters.a.devAddr, 40],
    ]);
  });

  it('refuses an alarm page beyond its limits, naming the field', async () => {
    for (const [body, field] of [
      [{ pageSize: 21 }, 'pageSize'],
      [{ pageSize: 0 }, 'pageSize'],
      [{ curPage: 101 }, 'curPage'],
      [{ curPage: 'x' }, 'curPage'],
      [{ gridId: 'x' }, 'gridId'],
    ] as const) {
      const res = await t.call('/dashboard/alarms', body, mine);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(fieldIssues(res.body).map(([f]) => f)).toContain(field);
    }
    expect((await t.call('/dashboard/archive', { gridId: grid.other }, mine)).status).toBe(400);
  });

  it("lists the latest operations of the caller's organisation's users and grid's devices", async () => {
    const north = newId();
    await t.db.insert(sysOrg).values({ id: north, orgName: 'North', orgCode: 'NORTH', pid: ROOT_ORG_ID });
    const journal = await userOfGrid(t, grid.region, [RES.dashboard, RES.sysJournal], north);
    const colleague = uniqueName('colleague');
    await t.createUser({ username: colleague, password: 'Colleague1', orgId: north });
    const entry = { logType: 'operation' as const, operatingType: 'update', content: '', result: 200 };
    await writeLog(t.db, { ...entry, username: colleague, requestUrl: '/apis/meter/update' });
    await writeLog(t.db, { ...entry, logType: 'visit', username: colleague, requestUrl: '/dashboard' });
    await writeLog(t.db, { ...entry, username: 'admin', requestUrl: '/apis/meter/delete' });
    for (const m of [meters.a, meters.x])
      await writeLog(t.db, {
        ...entry,
        actor: 'device',
        username: m.devAddr,
        requestUrl: deviceTopic('meter', m.devAddr, 'reply'),
      });
    const seen = (await t.call<OperationLog>('/dashboard/operations', {}, journal)).body.data.list;
    expect(seen.map((e) => [e.username, e.requestUrl])).toEqual([
      [meters.a.devAddr, deviceTopic('meter', meters.a.devAddr, 'reply')],
      [colleague, '/apis/meter/update'],
    ]);
    const all = (await t.call<OperationLog>('/dashboard/operations', {}, admin)).body.data.list;
    expect(all.map((e) => e.username)).toEqual(expect.arrayContaining(['admin', meters.x.devAddr, colleague]));
    expect(all.every((e) => e.logType === 'operation')).toBe(true);
  });
});
