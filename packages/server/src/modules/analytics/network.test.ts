import {
  addUtcDays,
  type ConcentratorRow,
  type DeviceOnlineDayRow,
  type DeviceOnlineRow,
  deviceTopic,
  NETWORK_RES,
  type NetworkDcuHistoryRow,
  type NetworkNodeRow,
  OBIS,
  type OnlineChangeRow,
  type Page,
  utcToday,
} from '@meterdesk/contracts';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../db/rows';
import { meter } from '../../db/schema';
import { compactOnlineCounts, fillOnlineDays, foldOnlinePending } from '../../readings/online-rollups';
import { foldPending } from '../../readings/rollups';
import { profileRows } from '../../readings/rows';
import { ReadingWriter } from '../../readings/writer';
import { dcuAt, exportedRows, gridNode, meterAt, userOfGrid } from '../../test/archive-fixtures';
import { createTestApp, type TestApp } from '../../test/harness';
import { fieldIssues } from '../../test/issues';
import { pdfText } from '../../test/pdf-text';
import { scriptedDevice } from '../../test/scripted-device';
import { intervalsDue } from '../collection/collection-report.service';

const DAY_MS = 86_400_000;
const daysAgo = (n: number) => new Date(Date.now() - n * DAY_MS).toISOString().slice(0, 10);
const at = (day: string, hours: number) => new Date(Date.parse(`${day}T00:00:00Z`) + hours * 3_600_000);
type Summary<F> = { figures: F; points: Record<string, unknown>[] };

/*
 * A region R with two areas: A holds DCU X with meter a1 behind it, direct meter a2 and a3 in the
 * warehouse (never counted); B holds direct meter b1. Another region O holds DCU Y and its meter o1.
 * The user of R sees R's devices only.
 */
describe('network analytics', () => {
  let t: TestApp;
  let admin: string;
  let user: string;
  let region: string;
  let areaA: string;
  let areaB: string;
  let other: string;
  let x: { id: string; dcuNo: string };
  let y: { id: string; dcuNo: string };
  const m = {} as Record<'a1' | 'a2' | 'a3' | 'b1' | 'o1', { id: string; devAddr: string }>;
  const D1 = daysAgo(4);
  const D2 = daysAgo(3);
  const D3 = daysAgo(2);
  const PERIOD = { startDay: D1, endDay: D3 };
  /** Statuses go through the head-end and the readings writer: seconds on a busy machine. */
  const LANDED = { timeout: 60_000 };

  const status = async (kind: 'meter' | 'dcu', key: string, online: boolean) => {
    const device = await scriptedDevice(t.broker, kind, key);
    await device.setOnline(online);
    await device.stop();
  };
  const monitor = (cookie = user, body: object = {}) =>
    t.call<Summary<Record<string, number | null>>>('/analytics/networkMonitor/summary', body, cookie);

  beforeAll(async () => {
    // A broker of its own: a shared one replays every retained status other runs left to the head-end first.
    t = await createTestApp({}, { headEnd: true, embeddedBroker: true });
    admin = await t.loginAdmin();
    region = await gridNode(t);
    areaA = await gridNode(t, region);
    areaB = await gridNode(t, region);
    other = await gridNode(t);
    x = await dcuAt(t, areaA);
    y = await dcuAt(t, other);
    m.a1 = await meterAt(t, areaA, undefined, x.id);
    m.a2 = await meterAt(t, areaA);
    m.a3 = await meterAt(t, areaA);
    m.b1 = await meterAt(t, areaB);
    m.o1 = await meterAt(t, other, undefined, y.id);
    // Installed, so expected to communicate; a3 stays in the warehouse.
    for (const key of ['a1', 'a2', 'b1', 'o1'] as const)
      await t.db.update(meter).set({ status: 1 }).where(eq(meter.id, m[key].id));
    user = await userOfGrid(t, region, [
      NETWORK_RES.monitor,
      `${NETWORK_RES.monitor}/export`,
      NETWORK_RES.history,
      NETWORK_RES.concentrators,
      NETWORK_RES.onlineReport,
      `${NETWORK_RES.onlineReport}/export`,
      NETWORK_RES.onlineDetail,
    ]);
  });
  afterAll(() => t.close());

  it('counts the devices of each node and its subtree now, following links and the archive at once', async () => {
    for (const [kind, key, online] of [
      ['dcu', x.dcuNo, true],
      ['meter', m.a1.devAddr, true],
      ['meter', m.a2.devAddr, false],
      ['meter', m.a3.devAddr, true],
      ['meter', m.b1.devAddr, true],
      ['dcu', y.dcuNo, true],
      ['meter', m.o1.devAddr, true],
    ] as const)
      await status(kind, key, online);
    // Every status above has landed once region O's meter, the last one told, counts as online.
    await expect
      .poll(async () => (await monitor(admin, { gridId: other })).body.data.figures, LANDED)
      .toMatchObject({ metersOnline: 1, dcusOnline: 1 });
    await expect
      .poll(async () => (await monitor()).body.data.figures, LANDED)
      .toEqual({
        metersOnline: 2,
        metersOffline: 1,
        meterOnlineRate: 66.7,
        dcusOnline: 1,
        dcusOffline: 0,
        dcuOnlineRate: 100,
      });
    const list = await t.call<Page<NetworkNodeRow>>('/analytics/networkMonitor/list', {}, user);
    // The tree in order (children by name), each node with its subtree; region O is another user's.
    const [top, ...areas] = list.body.data.list;
    expect(top).toMatchObject({ gridId: region, depth: 0, metersOnline: 2, metersOffline: 1, dcusOnline: 1 });
    expect(areas.map((r) => r.gridName)).toEqual(areas.map((r) => r.gridName).sort());
    expect(areas.map((r) => [r.gridId, r.depth, r.metersOnline, r.metersOffline, r.dcusOnline])).toEqual(
      expect.arrayContaining([
        [areaA, 1, 1, 1, 1],
        [areaB, 1, 1, 0, 0],
      ]),
    );
    expect(list.body.data.total).toBe(3);
    expect((await monitor()).body.data.points.map((p) => p.metersOnline).sort()).toEqual([1, 1]);

    // X goes dark: its meter a1 is unreachable with it, at once (no fold in between).
    await status('dcu', x.dcuNo, false);
    await expect
      .poll(async () => (await monitor()).body.data.figures, LANDED)
      .toMatchObject({ metersOnline: 1, metersOffline: 2, dcusOnline: 0, dcusOffline: 1 });
    const a = await t.call<Page<NetworkNodeRow>>('/analytics/networkMonitor/list', { gridId: areaA }, user);
    expect(a.body.data.list).toEqual([
      expect.objectContaining({ gridId: areaA, metersOnline: 0, metersOffline: 2, meterOnlineRate: 0, dcusOffline: 1 }),
    ]);
    // A meter moved in the archive is counted where it now lies; a meter leaving service is no longer counted.
    await t.db.update(meter).set({ gridId: areaA }).where(eq(meter.id, m.b1.id));
    const moved = await t.call<Page<NetworkNodeRow>>('/analytics/networkMonitor/list', { gridId: areaA }, user);
    expect(moved.body.data.list[0]).toMatchObject({ metersOnline: 1, metersOffline: 2 });
    await t.db.update(meter).set({ gridId: areaB }).where(eq(meter.id, m.b1.id));
    await t.db.update(meter).set({ status: 4 }).where(eq(meter.id, m.a2.id));
    expect((await monitor()).body.data.figures).toMatchObject({ metersOnline: 1, metersOffline: 1 });
    await t.db.update(meter).set({ status: 1 }).where(eq(meter.id, m.a2.id));
    // The counts' rows added up into one per key answer the same.
    const before = (await monitor(admin, { gridId: region })).body.data.figures;
    await compactOnlineCounts(t.db);
    expect((await monitor(admin, { gridId: region })).body.data.figures).toEqual(before);
  });

  it('rolls online time up per device and day: across midnight, without a change, behind a DCU', async () => {
    await new ReadingWriter(t.database).write({
      linkChanges: [
        // a2: on at 06:00 on D1, off at 22:00, back at 02:00 on D2; nothing on D3.
        { deviceId: m.a2.id, deviceKind: 'meter', ts: at(D1, 6), online: true },
        { deviceId: m.a2.id, deviceKind: 'meter', ts: at(D1, 22), online: false },
        { deviceId: m.a2.id, deviceKind: 'meter', ts: at(D2, 2), online: true },
        // X: on from D1's first instant, dark from 12:00 to 18:00 on D2.
        { deviceId: x.id, deviceKind: 'dcu', ts: at(D1, 0), online: true },
        { deviceId: x.id, deviceKind: 'dcu', ts: at(D2, 12), online: false },
        { deviceId: x.id, deviceKind: 'dcu', ts: at(D2, 18), online: true },
        // a1, behind X: on at 03:00 on D1.
        { deviceId: m.a1.id, deviceKind: 'meter', ts: at(D1, 3), online: true },
        { deviceId: m.b1.id, deviceKind: 'meter', ts: at(D1, 0), online: false },
        { deviceId: m.a3.id, deviceKind: 'meter', ts: at(D1, 0), online: true },
        { deviceId: y.id, deviceKind: 'dcu', ts: at(D1, 0), online: true },
        { deviceId: m.o1.id, deviceKind: 'meter', ts: at(D1, 0), online: true },
      ],
    });
    await foldOnlinePending(t.db);
    const days = async (device: string) => {
      const res = await t.call<Page<DeviceOnlineDayRow>>(
        '/analytics/deviceOnlineDetail/list',
        { ...PERIOD, deviceId: device, sortField: 'day', sortOrder: 'ascend' },
        user,
      );
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data.list.map((d) => [d.day, d.onlineHours, d.onlineRate, d.changes, d.stateAtEnd]);
    };
    expect(await days(m.a2.id)).toEqual([
      [D1, 16, 66.7, 2, 'offline'],
      [D2, 22, 91.7, 1, 'online'],
      [D3, 24, 100, 0, 'online'],
    ]);
    expect(await days(m.a1.id)).toEqual([
      [D1, 21, 87.5, 1, 'online'],
      [D2, 18, 75, 0, 'online'],
      [D3, 24, 100, 0, 'online'],
    ]);
    const detail = await t.call<Summary<Record<string, unknown>>>(
      '/analytics/deviceOnlineDetail/summary',
      { ...PERIOD, deviceId: m.a2.id },
      user,
    );
    expect(detail.body.data.figures).toMatchObject({
      deviceNo: m.a2.devAddr,
      deviceKind: 'meter',
      onlineRate: 86.1,
      changes: 3,
    });
    expect(detail.body.data.points).toEqual([
      { day: D1, onlineRate: 66.7 },
      { day: D2, onlineRate: 91.7 },
      { day: D3, onlineRate: 100 },
    ]);
    // A meter's changes list its DCU's too, newest first.
    const changes = await t.call<Page<OnlineChangeRow>>(
      '/analytics/deviceOnlineDetail/changes',
      { ...PERIOD, deviceId: m.a1.id },
      user,
    );
    expect(changes.body.data.list.map((c) => [c.at, c.state, c.source, c.deviceNo])).toEqual([
      [at(D2, 18).toISOString(), 'online', 'dcu', x.dcuNo],
      [at(D2, 12).toISOString(), 'offline', 'dcu', x.dcuNo],
      [at(D1, 3).toISOString(), 'online', 'meter', m.a1.devAddr],
      [at(D1, 0).toISOString(), 'online', 'dcu', x.dcuNo],
    ]);

    // A change stored late recomputes its day and every later one.
    await new ReadingWriter(t.database).write({
      linkChanges: [{ deviceId: m.a2.id, deviceKind: 'meter', ts: at(D3, 10), online: false }],
    });
    await foldOnlinePending(t.db);
    expect((await days(m.a2.id))[2]).toEqual([D3, 10, 41.7, 1, 'offline']);
    const [later] = await rowsOf<{ online_seconds: number }>(
      t.db,
      sql`select online_seconds from rollup_online_day where device_id = ${m.a2.id} and day = ${addUtcDays(D3, 1)}`,
    );
    expect(later?.online_seconds).toBe(0);
    await new ReadingWriter(t.database).write({
      linkChanges: [{ deviceId: m.a2.id, deviceKind: 'meter', ts: at(D3, 11), online: true }],
    });
    await foldOnlinePending(t.db);

    // A new day begins with each device's row carried from the day before.
    const today = utcToday();
    const tomorrow = addUtcDays(today, 1);
    await fillOnlineDays(t.db, at(tomorrow, 0.01));
    const carried = await rowsOf<{ device_id: string; online_seconds: number; online_at_end: boolean }>(
      t.db,
      sql`select r.device_id, r.online_seconds, r.online_at_end from rollup_online_day r
        where r.day = ${tomorrow} and r.device_id in (${m.a2.id}, ${m.b1.id})`,
    );
    const [ended] = await rowsOf<{ online_at_end: boolean }>(
      t.db,
      sql`select online_at_end from rollup_online_day where device_id = ${m.b1.id} and day = ${today}`,
    );
    expect(carried.find((r) => r.device_id === m.b1.id)).toMatchObject({
      online_at_end: ended?.online_at_end,
      online_seconds: ended?.online_at_end ? 86_400 : 0,
    });
  });

  it('shows the online rate per day and per DCU over a period, within the scope', async () => {
    const summary = await t.call<Summary<Record<string, unknown>>>(
      '/analytics/networkHistoricalMonitor/summary',
      PERIOD,
      user,
    );
    expect(summary.status, JSON.stringify(summary.body)).toBe(200);
    // Meters a1, a2 (23 h on D3, after the late change), b1 (a3 is not counted, o1 is another grid's); DCU X.
    expect(summary.body.data.points).toEqual([
      { day: D1, meterOnlineRate: 51.4, dcuOnlineRate: 100 },
      { day: D2, meterOnlineRate: 55.6, dcuOnlineRate: 75 },
      { day: D3, meterOnlineRate: 65.3, dcuOnlineRate: 100 },
    ]);
    expect(summary.body.data.figures).toEqual({
      meterOnlineRate: 57.4,
      dcuOnlineRate: 91.7,
      lowestDay: D1,
      lowestDayRate: 51.4,
    });
    const rows = await t.call<Page<NetworkDcuHistoryRow>>('/analytics/networkHistoricalMonitor/list', PERIOD, user);
    expect(rows.body.data).toMatchObject({
      total: 1,
      list: [{ dcuId: x.id, dcuOnlineRate: 91.7, meters: 1, meterOnlineRate: 87.5, changes: 3 }],
    });
    const ofX = await t.call<Summary<Record<string, unknown>>>(
      '/analytics/networkHistoricalMonitor/summary',
      { ...PERIOD, dcuId: x.id },
      user,
    );
    expect(ofX.body.data.figures).toMatchObject({ meterOnlineRate: 87.5, dcuOnlineRate: 91.7 });
  });

  it("lists every device's online rate over the period, DCUs first, and narrows by kind, DCU and meter", async () => {
    const list = await t.call<Page<DeviceOnlineRow>>('/analytics/deviceOnlineReport/list', PERIOD, user);
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    const meters = [m.a1, m.a2, m.b1].sort((a, b) => a.devAddr.toLowerCase().localeCompare(b.devAddr.toLowerCase()));
    expect(list.body.data.total).toBe(4);
    expect(list.body.data.list.map((r) => r.deviceId)).toEqual([x.id, ...meters.map((r) => r.id)]);
    const row = (id: string) => list.body.data.list.find((r) => r.deviceId === id);
    expect(row(x.id)).toMatchObject({ deviceKind: 'dcu', onlineRate: 91.7, onlineHours: 66, changes: 3, daysKnown: 3 });
    expect(row(m.a1.id)).toMatchObject({ deviceKind: 'meter', dcuNo: x.dcuNo, onlineRate: 87.5, state: 'offline' });
    expect(row(m.b1.id)).toMatchObject({ onlineRate: 0, changes: 1, state: 'online' });
    // The second page of one row continues where the first stopped, across the kinds.
    const second = await t.call<Page<DeviceOnlineRow>>(
      '/analytics/deviceOnlineReport/list',
      { ...PERIOD, pageSize: 1, curPage: 2 },
      user,
    );
    expect(second.body.data.list.map((r) => r.deviceId)).toEqual([meters[0]?.id]);
    const byRate = await t.call<Page<DeviceOnlineRow>>(
      '/analytics/deviceOnlineReport/list',
      { ...PERIOD, sortField: 'onlineRate', sortOrder: 'descend' },
      user,
    );
    expect(byRate.body.data.list.map((r) => r.onlineRate)).toEqual([91.7, 87.5, 84.7, 0]);

    const narrowed = async (body: object) =>
      (
        await t.call<Page<DeviceOnlineRow>>('/analytics/deviceOnlineReport/list', { ...PERIOD, ...body }, user)
      ).body.data.list.map((r) => r.deviceId);
    expect(await narrowed({ deviceKind: 'dcu' })).toEqual([x.id]);
    expect(await narrowed({ dcuId: x.id })).toEqual([x.id, m.a1.id]);
    expect(await narrowed({ devAddr: m.a2.devAddr })).toEqual([m.a2.id]);

    const summary = await t.call<Summary<Record<string, unknown>>>(
      '/analytics/deviceOnlineReport/summary',
      PERIOD,
      user,
    );
    expect(summary.body.data.figures).toEqual({ devices: 4, onlineRate: 66, offlineNow: 3, changes: 10 });
    expect(summary.body.data.points[1]).toEqual({ day: D2, meterOnlineRate: 55.6, dcuOnlineRate: 75 });
  });

  it("shows each DCU's link, heartbeat, meters online and today's reads", async () => {
    const today = utcToday();
    const due = intervalsDue(today, new Date());
    const stored = Math.min(4, due);
    if (stored)
      await new ReadingWriter(t.database).write({
        profile: profileRows(
          m.a1.id,
          Array.from({ length: stored }, (_, i) => ({
            ts: at(today, (i + 1) / 4).toISOString(),
            values: { [OBIS.activePower]: 100 },
          })),
        ),
      });
    await foldPending(t.db);
    await t.broker.publish(deviceTopic('dcu', x.dcuNo, 'heartbeat'), { time: new Date().toISOString() });
    const rows = async () =>
      (await t.call<Page<ConcentratorRow>>('/analytics/concentratorMonitoring/list', {}, user)).body.data;
    await expect.poll(async () => (await rows()).list[0]?.lastHeartbeat ?? null, { timeout: 20_000 }).not.toBeNull();
    const page = await rows();
    expect(page.total).toBe(1);
    const [row] = page.list;
    expect(row).toMatchObject({ dcuId: x.id, state: 'offline', meters: 1, metersOnline: 0, meterOnlineShare: 0 });
    expect(row?.since).not.toBeNull();
    const rate = (d: number) => (d ? Math.round((stored * 1000) / d) / 10 : null);
    expect([rate(due), rate(intervalsDue(today, new Date()))]).toContain(row?.readSuccessToday);

    const summary = await t.call<Summary<Record<string, unknown>>>(
      '/analytics/concentratorMonitoring/summary',
      {},
      user,
    );
    expect(summary.body.data.figures).toMatchObject({ dcus: 1, dcusOnline: 0, dcusOffline: 1, meterOnlineShare: 0 });
    expect(summary.body.data.points[0]).toMatchObject({ band: '0–50', byOnlineShare: 1 });
    const online = await t.call<Page<ConcentratorRow>>(
      '/analytics/concentratorMonitoring/list',
      { state: 'online' },
      user,
    );
    expect(online.body.data.total).toBe(0);
  });

  it('refuses bad input before reading anything, naming the field', async () => {
    const tomorrow = addUtcDays(utcToday(), 1);
    const cases: [string, object, [string, string]][] = [
      ['networkHistoricalMonitor/list', { startDay: D1, endDay: tomorrow }, ['endDay', 'dateAfterToday']],
      ['networkHistoricalMonitor/summary', { startDay: daysAgo(100), endDay: D1 }, ['endDay', 'timeRangeTooLong']],
      ['deviceOnlineReport/list', { startDay: daysAgo(40), endDay: D1 }, ['endDay', 'timeRangeTooLong']],
      ['deviceOnlineReport/list', { startDay: D3, endDay: D1 }, ['startDay', 'timeRangeInvalid']],
      ['deviceOnlineReport/list', { deviceKind: 'modem' }, ['deviceKind', 'invalidValue']],
      ['deviceOnlineDetail/list', PERIOD, ['deviceId', 'mandatory']],
      ['deviceOnlineDetail/changes', { deviceId: x.id, pageSize: 10_000 }, ['pageSize', 'outOfRange']],
      ['concentratorMonitoring/list', { state: 'asleep' }, ['state', 'invalidValue']],
      ['networkMonitor/list', { pageSize: 501 }, ['pageSize', 'outOfRange']],
    ];
    for (const [path, body, issue] of cases) {
      const res = await t.call(`/analytics/${path}`, body, user);
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(fieldIssues(res.body)).toContainEqual(issue);
    }
    // A page about now takes no period.
    const dated = await t.call('/analytics/networkMonitor/list', { startDay: D1, endDay: D1 }, user);
    expect(dated.status).toBe(400);
  });

  it("answers another grid's node, DCU, meter or device as unknown, and counts none of its devices", async () => {
    for (const [path, body, field] of [
      ['networkMonitor/list', { gridId: other }, 'gridId'],
      ['networkHistoricalMonitor/summary', { ...PERIOD, dcuId: y.id }, 'dcuId'],
      ['concentratorMonitoring/list', { dcuId: y.id }, 'dcuId'],
      ['deviceOnlineReport/list', { ...PERIOD, devAddr: m.o1.devAddr }, 'devAddr'],
      ['deviceOnlineDetail/summary', { ...PERIOD, deviceId: m.o1.id }, 'deviceId'],
      ['deviceOnlineDetail/changes', { ...PERIOD, deviceId: y.id }, 'deviceId'],
    ] as const) {
      const res = await t.call(`/analytics/${path}`, body, user);
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(404);
      expect(fieldIssues(res.body)).toEqual([[field, 'notFound']]);
    }
    // The administrator reaches region O: its DCU and meter, online all along.
    const o = await t.call<Summary<Record<string, unknown>>>(
      '/analytics/networkMonitor/summary',
      { gridId: other },
      admin,
    );
    expect(o.body.data.figures).toMatchObject({ metersOnline: 1, metersOffline: 0, dcusOnline: 1 });
    const history = await t.call<Page<NetworkDcuHistoryRow>>(
      '/analytics/networkHistoricalMonitor/list',
      { ...PERIOD, gridId: other },
      admin,
    );
    expect(history.body.data.list).toMatchObject([{ dcuId: y.id, dcuOnlineRate: 100, meterOnlineRate: 100 }]);
  });

  it('exports the nodes now and the devices over the period as a workbook and a PDF', async () => {
    const rows = await exportedRows(t, 'analytics/networkMonitor', user, {
      columns: ['gridName', 'metersOnline', 'metersOffline'],
    });
    expect(rows[0]).toEqual(['Grid node', 'Meters online', 'Meters offline']);
    expect(rows).toHaveLength(4);
    const devices = await exportedRows(t, 'analytics/deviceOnlineReport', user, {
      ...PERIOD,
      columns: ['deviceNo', 'onlineRate'],
    });
    expect(devices.slice(1)).toContainEqual([x.dcuNo, 91.7]);
    const pdf = await t.app.http.inject({
      method: 'POST',
      url: '/apis/analytics/networkMonitor/export',
      payload: { format: 'pdf' },
      headers: { cookie: user },
    });
    expect(pdf.statusCode).toBe(200);
    const text = pdfText(pdf.rawPayload);
    expect(text).toContain('Network monitor');
    expect(text).not.toContain('Period');
  });
});
