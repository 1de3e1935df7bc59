import {
  type AcknowledgeResult,
  API_BASE,
  METER_EVENTS_RES,
  type MeterEventRecord,
  type MeterTimelineRecord,
  type Page,
  type StormGroup,
} from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sysLog } from '../../db/schema';
import { foldPending } from '../../readings/rollups';
import { meterEventRows } from '../../readings/rows';
import { ReadingWriter } from '../../readings/writer';
import { dcuAt, exportedRows, gridNode, meterAt, userOfGrid } from '../../test/archive-fixtures';
import { createTestApp, type TestApp } from '../../test/harness';
import { fieldIssues } from '../../test/issues';
import { pdfText } from '../../test/pdf-text';
import { unacknowledgedSevereCount, unacknowledgedSevereEvents } from './meter-event-alarms';

const DAY_MS = 86_400_000;
const daysAgo = (n: number) => new Date(Date.now() - n * DAY_MS).toISOString().slice(0, 10);
const at = (day: string, minutes: number, seconds = 0) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + minutes * 60_000 + seconds * 1000).toISOString();

type Summary = {
  figures: Record<string, number | string>;
  points: Record<string, number | string | null>[];
};

describe('meter events analytics, storms and acknowledgements', () => {
  let t: TestApp;
  let admin: string;
  let scoped: string;
  let scopedName: string;
  let colleague: string;
  let viewer: string;
  let area: string;
  let other: string;
  let box: { id: string; dcuNo: string };
  let otherBox: { id: string; dcuNo: string };
  const storm: { id: string; devAddr: string }[] = [];
  let direct: { id: string; devAddr: string };
  let outside: { id: string; devAddr: string };
  const D1 = daysAgo(3);
  const D2 = daysAgo(2);
  const PERIOD = { startDay: D1, endDay: D2 };
  // The DCU lost its supply on D1 at 10:00: its three meters report within two seconds, and again when it returns.
  const DOWN = (i: number) => at(D1, 600, i);
  const UP = (i: number) => at(D1, 640, i);

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
    area = await gridNode(t);
    other = await gridNode(t);
    box = await dcuAt(t, area);
    otherBox = await dcuAt(t, other);
    for (let i = 0; i < 3; i++) storm.push(await meterAt(t, area, undefined, box.id));
    direct = await meterAt(t, area);
    outside = await meterAt(t, other, undefined, otherBox.id);
    const writer = new ReadingWriter(t.database);
    await writer.write({
      meterEvents: [
        ...storm.flatMap((m, i) =>
          meterEventRows(m.id, [
            { code: 1, level: 'severe', time: DOWN(i) },
            { code: 2, level: 'regular', time: UP(i) },
          ]),
        ),
        ...meterEventRows(direct.id, [{ code: 40, level: 'severe', time: at(D2, 300) }]),
        ...meterEventRows(outside.id, [{ code: 1, level: 'severe', time: DOWN(0) }]),
      ],
    });
    // The first meter's power-down delivered again: stored and counted once.
    expect(
      await writer.write({ meterEvents: meterEventRows(storm[0]!.id, [{ code: 1, level: 'severe', time: DOWN(0) }]) }),
    ).toBe(0);
    await foldPending(t.db);
    const uris = [
      METER_EVENTS_RES.page,
      METER_EVENTS_RES.detail,
      METER_EVENTS_RES.export,
      METER_EVENTS_RES.acknowledge,
    ];
    scoped = await userOfGrid(t, area, uris);
    scopedName = (await t.call<{ username: string }>('/sysuser/auth', {}, scoped)).body.data.username;
    colleague = await userOfGrid(t, area, uris);
    viewer = await userOfGrid(t, area, [METER_EVENTS_RES.page]);
  });
  afterAll(() => t.close());

  const list = (body: object, cookie = scoped) =>
    t.call<Page<MeterEventRecord>>('/analytics/meterEvents/list', { ...PERIOD, ...body }, cookie);
  const storms = (body: object = {}, cookie = scoped) =>
    t.call<Page<StormGroup>>('/analytics/meterEvents/storms', { ...PERIOD, ...body }, cookie);
  const acknowledge = (body: object, cookie = scoped) =>
    t.call<AcknowledgeResult>('/analytics/meterEvents/acknowledge', body, cookie);

  it("lists the scope's events newest first with their names, meters and DCUs, counted by the rollups", async () => {
    const res = await list({ pageSize: 4 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // 3 meters × (down, up) + the direct meter's cover; never the other grid's meter.
    expect(res.body.data.total).toBe(7);
    expect(res.body.data.list.map((e) => [e.time, e.code])).toEqual([
      [at(D2, 300), 40],
      [UP(2), 2],
      [UP(1), 2],
      [UP(0), 2],
    ]);
    expect(res.body.data.list[0]).toMatchObject({
      devAddr: direct.devAddr,
      name: 'Terminal cover opened',
      level: 'severe',
      acknowledged: false,
      ackByName: null,
      dcuNo: null,
    });
    expect(res.body.data.list[1]).toMatchObject({ devAddr: storm[2]!.devAddr, dcuNo: box.dcuNo, name: 'Power up' });

    const filtered = async (body: object) => {
      const page = await list({ ...body, pageSize: 50 });
      expect(page.status, JSON.stringify(body)).toBe(200);
      expect(page.body.data.total, JSON.stringify(body)).toBe(page.body.data.list.length);
      return page.body.data.list.map((e) => `${e.devAddr} ${e.code}`);
    };
    expect(await filtered({ level: 'severe' })).toHaveLength(4);
    expect(await filtered({ code: 2 })).toHaveLength(3);
    // The filter bar sends a picked code as text.
    expect(await filtered({ code: '2' })).toHaveLength(3);
    expect(await filtered({ dcuId: box.id })).toHaveLength(6);
    expect(await filtered({ devAddr: storm[0]!.devAddr })).toEqual([
      `${storm[0]!.devAddr} 2`,
      `${storm[0]!.devAddr} 1`,
    ]);
    expect(await filtered({ startDay: D2, endDay: D2 })).toEqual([`${direct.devAddr} 40`]);
    const oldest = await list({ sortField: 'time', sortOrder: 'ascend', pageSize: 1 });
    expect(oldest.body.data.list.map((e) => e.time)).toEqual([DOWN(0)]);
  });

  it('counts the events per day and level for the summary and the stacked chart', async () => {
    const res = await t.call<Summary>('/analytics/meterEvents/summary', PERIOD, scoped);
    expect(res.status).toBe(200);
    expect(res.body.data.figures).toEqual({ events: 7, regular: 3, medium: 0, severe: 4, unacknowledged: 7 });
    expect(res.body.data.points).toEqual([
      { day: D1, regular: 3, medium: 0, severe: 3 },
      { day: D2, regular: 0, medium: 0, severe: 1 },
    ]);
    const admins = await t.call<Summary>('/analytics/meterEvents/summary', { ...PERIOD, code: 1 }, admin);
    expect(admins.body.data.figures).toMatchObject({ events: 4, severe: 4 });
  });

  it('groups a storm by DCU and code: its events, meters, first and last time', async () => {
    const res = await storms({ sortField: 'events' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // The direct meter belongs to no DCU's storm; the other grid's DCU is not the caller's.
    expect(res.body.data.total).toBe(2);
    const down = res.body.data.list.find((g) => g.code === 1);
    expect(down).toMatchObject({
      dcuId: box.id,
      dcuNo: box.dcuNo,
      name: 'Power down',
      level: 'severe',
      events: 3,
      meters: 3,
      acknowledged: 0,
      unacknowledged: 3,
      firstTime: DOWN(0),
      lastTime: DOWN(2),
      key: `${box.id}/1`,
    });
    const severe = await storms({ level: 'severe' });
    expect(severe.body.data.list.map((g) => g.code)).toEqual([1]);
    const one = await storms({ devAddr: storm[1]!.devAddr });
    expect(one.body.data.list.map((g) => [g.code, g.events, g.meters])).toEqual(
      expect.arrayContaining([
        [1, 1, 1],
        [2, 1, 1],
      ]),
    );
  });

  it('acknowledges a storm in bulk with a remark, once: the first who and when stay, and it is logged', async () => {
    const stormKey = { dcuId: box.id, code: 1, from: DOWN(0), to: DOWN(2) };
    expect((await acknowledge({ storm: stormKey, remark: 'Feeder F1 tripped' }, viewer)).status).toBe(403);

    const first = await acknowledge({ storm: stormKey, remark: '  Feeder F1 tripped ' });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data).toEqual({ acknowledged: 3, already: 0 });

    const events = await list({ code: 1, pageSize: 10 });
    expect(events.body.data.list.map((e) => [e.acknowledged, e.ackByName, e.ackRemark])).toEqual([
      [true, scopedName, 'Feeder F1 tripped'],
      [true, scopedName, 'Feeder F1 tripped'],
      [true, scopedName, 'Feeder F1 tripped'],
    ]);
    const ackAt = events.body.data.list.map((e) => e.ackAt);
    // The rollups show it at once: the storm is acknowledged, the summary's open events fewer.
    const group = (await storms()).body.data.list.find((g) => g.code === 1);
    expect(group).toMatchObject({ events: 3, acknowledged: 3, unacknowledged: 0 });
    const summary = await t.call<Summary>('/analytics/meterEvents/summary', PERIOD, scoped);
    expect(summary.body.data.figures).toMatchObject({ events: 7, unacknowledged: 4 });
    expect((await storms({ acknowledged: false })).body.data.list.map((g) => g.code)).toEqual([2]);
    expect((await list({ acknowledged: false, pageSize: 50 })).body.data.total).toBe(4);

    // Again, by a colleague: nothing changes hands.
    const again = await acknowledge({ storm: stormKey, remark: 'Second look' }, colleague);
    expect(again.body.data).toEqual({ acknowledged: 0, already: 3 });
    const after = await list({ code: 1, pageSize: 10 });
    expect(after.body.data.list.map((e) => [e.ackByName, e.ackRemark, e.ackAt])).toEqual(
      ackAt.map((time) => [scopedName, 'Feeder F1 tripped', time]),
    );

    const entries = await t.db
      .select()
      .from(sysLog)
      .where(eq(sysLog.requestUrl, `${API_BASE}/analytics/meterEvents/acknowledge`));
    const mine = entries.filter((e) => e.username === scopedName && e.result === 200);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ logType: 'operation', operatingType: 'update' });
    expect(mine[0]?.content).toContain('Feeder F1 tripped');
  });

  it('acknowledges selected events, never one of another grid, which answers as not found', async () => {
    const [cover] = (await list({ code: 40 })).body.data.list;
    const own = { meterId: direct.id, time: cover!.time, code: 40 };
    const foreign = { meterId: outside.id, time: DOWN(0), code: 1 };
    const refused = await acknowledge({ events: [own, foreign], remark: 'Checked on site' });
    expect(refused.status).toBe(404);
    expect(fieldIssues(refused.body)).toEqual([['events.1', 'notFound']]);
    const missing = await acknowledge({ events: [{ ...own, code: 41 }], remark: 'Checked on site' });
    expect(fieldIssues(missing.body)).toEqual([['events.0', 'notFound']]);
    // Nothing of a refused call is acknowledged.
    expect((await list({ code: 40 })).body.data.list[0]?.acknowledged).toBe(false);
    const otherStorm = await acknowledge({
      storm: { dcuId: otherBox.id, code: 1, from: DOWN(0), to: DOWN(0) },
      remark: 'Not mine',
    });
    expect(otherStorm.status).toBe(404);
    expect(fieldIssues(otherStorm.body)).toEqual([['storm.dcuId', 'notFound']]);

    const done = await acknowledge({ events: [own], remark: 'Checked on site' });
    expect(done.body.data).toEqual({ acknowledged: 1, already: 0 });
    expect((await list({ code: 40 })).body.data.list[0]).toMatchObject({
      acknowledged: true,
      ackRemark: 'Checked on site',
    });
    // The administrator still finds the other grid's event waiting.
    const theirs = await list({ gridId: other }, admin);
    expect(theirs.body.data.list.map((e) => [e.devAddr, e.acknowledged])).toEqual([[outside.devAddr, false]]);
  });

  it('gives the dashboard the unacknowledged severe events of the caller, and their count', async () => {
    const since = new Date(Date.parse(`${D1}T00:00:00Z`));
    const areaScope = { all: false, orgId: null, gridIds: [area] };
    expect(await unacknowledgedSevereEvents(t.db, areaScope, { since, limit: 5 })).toEqual({ list: [], more: false });
    expect(await unacknowledgedSevereCount(t.db, areaScope, D1)).toBe(0);
    const all = { all: true, orgId: null, gridIds: [] };
    const alarms = await unacknowledgedSevereEvents(t.db, all, { since, limit: 5 });
    expect(alarms.list.map((a) => [a.devAddr, a.code, a.name, a.time])).toEqual([
      [outside.devAddr, 1, 'Power down', DOWN(0)],
    ]);
    expect(await unacknowledgedSevereCount(t.db, all, D1)).toBeGreaterThanOrEqual(1);
  });

  it('refuses bad input before reading anything, naming the field', async () => {
    const tomorrow = new Date(Date.now() + DAY_MS).toISOString().slice(0, 10);
    const periods: [object, [string, string]][] = [
      [{ startDay: D1, endDay: tomorrow }, ['endDay', 'dateAfterToday']],
      [{ startDay: daysAgo(40), endDay: D1 }, ['endDay', 'timeRangeTooLong']],
      [{ startDay: D2, endDay: D1 }, ['startDay', 'timeRangeInvalid']],
      [{ level: 'loud' }, ['level', 'invalidValue']],
      [{ code: 70_000 }, ['code', 'outOfRange']],
    ];
    for (const [body, issue] of periods)
      for (const path of ['list', 'summary', 'storms']) {
        const res = await t.call(`/analytics/meterEvents/${path}`, { ...PERIOD, ...body }, scoped);
        expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(400);
        expect(fieldIssues(res.body)).toContainEqual(issue);
      }
    expect(fieldIssues((await storms({ sortField: 'name' })).body)).toContainEqual(['sortField', 'invalidValue']);

    const stormKey = { dcuId: box.id, code: 1, from: DOWN(0), to: DOWN(2) };
    const acks: [object, [string, string]][] = [
      [{ storm: stormKey }, ['remark', 'mandatory']],
      [{ storm: stormKey, remark: '   ' }, ['remark', 'mandatory']],
      [{ storm: stormKey, remark: 'x'.repeat(501) }, ['remark', 'tooLong']],
      [{ remark: 'r' }, ['events', 'mandatory']],
      [
        { storm: stormKey, events: [{ meterId: direct.id, time: DOWN(0), code: 1 }], remark: 'r' },
        ['events', 'mandatory'],
      ],
      [{ storm: { ...stormKey, from: DOWN(2), to: DOWN(0) }, remark: 'r' }, ['storm.from', 'timeRangeInvalid']],
      [{ storm: { ...stormKey, from: at(daysAgo(40), 0) }, remark: 'r' }, ['storm.to', 'timeRangeTooLong']],
      [{ events: [], remark: 'r' }, ['events', 'mandatory']],
      [
        { events: [{ meterId: direct.id, time: 'yesterday', code: 1 }], remark: 'r' },
        ['events.0.time', 'invalidValue'],
      ],
    ];
    for (const [body, issue] of acks) {
      const res = await acknowledge(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(fieldIssues(res.body)).toContainEqual(issue);
    }
  });

  it('answers a grid node, DCU or meter outside the scope as unknown, naming the field', async () => {
    for (const [path, body, field] of [
      ['meterEvents/list', { gridId: other }, 'gridId'],
      ['meterEvents/storms', { dcuId: otherBox.id }, 'dcuId'],
      ['meterEvents/summary', { devAddr: outside.devAddr }, 'devAddr'],
      ['meterEventsDetail/list', { meterId: outside.id }, 'meterId'],
      ['meterEventsDetail/summary', { meterId: outside.id }, 'meterId'],
    ] as const) {
      const res = await t.call(`/analytics/${path}`, { ...PERIOD, ...body }, scoped);
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(404);
      expect(fieldIssues(res.body)).toEqual([[field, 'notFound']]);
    }
  });

  it("draws a meter's timeline and lists its events with their acknowledgement", async () => {
    const missing = await t.call('/analytics/meterEventsDetail/list', PERIOD, scoped);
    expect(fieldIssues(missing.body)).toContainEqual(['meterId', 'mandatory']);
    const meterId = storm[0]!.id;
    const rows = await t.call<Page<MeterTimelineRecord>>(
      '/analytics/meterEventsDetail/list',
      { ...PERIOD, meterId },
      scoped,
    );
    expect(rows.body.data.total).toBe(2);
    expect(rows.body.data.list.map((e) => [e.time, e.name, e.acknowledged, e.ackByName])).toEqual([
      [UP(0), 'Power up', false, null],
      [DOWN(0), 'Power down', true, scopedName],
    ]);
    const summary = await t.call<Summary>('/analytics/meterEventsDetail/summary', { ...PERIOD, meterId }, scoped);
    expect(summary.body.data.figures).toEqual({
      devAddr: storm[0]!.devAddr,
      events: 2,
      severe: 1,
      unacknowledged: 1,
    });
    expect(summary.body.data.points).toEqual([
      { time: DOWN(0), regular: null, medium: null, severe: 1 },
      { time: UP(0), regular: 2, medium: null, severe: null },
    ]);
  });

  it('exports the events as a workbook and a PDF, names translated in Chinese', async () => {
    const rows = await exportedRows(t, 'analytics/meterEvents', scoped, {
      ...PERIOD,
      code: 1,
      columns: ['devAddr', 'name', 'level', 'acknowledged', 'ackByName'],
    });
    expect(rows).toEqual([
      ['Meter SN', 'Event', 'Level', 'Acknowledged', 'Acknowledged by'],
      ...[2, 1, 0].map((i) => [storm[i]!.devAddr, 'Power down', 'Severe', 'Yes', scopedName]),
    ]);
    await t.call('/sysuser/changelanguage', { type: 2 }, scoped);
    const zh = await exportedRows(t, 'analytics/meterEvents', scoped, {
      ...PERIOD,
      code: 1,
      columns: ['name', 'level'],
    });
    expect(zh.slice(1)).toEqual([
      ['掉电', '严重'],
      ['掉电', '严重'],
      ['掉电', '严重'],
    ]);
    await t.call('/sysuser/changelanguage', { type: 1 }, scoped);
    const pdf = await t.app.http.inject({
      method: 'POST',
      url: '/apis/analytics/meterEvents/export',
      payload: { ...PERIOD, format: 'pdf' },
      headers: { cookie: scoped },
    });
    expect(pdf.statusCode).toBe(200);
    const text = pdfText(pdf.rawPayload);
    expect(text).toContain('Meter events');
    expect(text).toContain(`${D1} – ${D2}`);
    expect(text).toContain(direct.devAddr);
  });

  it('offers the event definitions to pick a code from', async () => {
    const res = await t.call<{ code: number; name: string; level: string }[]>(
      '/analytics/meterEvents/codes',
      {},
      viewer,
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toContainEqual({ code: 1, name: 'Power down', level: 'severe' });
  });
});
