import {
  LOAD_PROFILE_RES,
  type LoadProfileIntervalRow,
  type LoadProfileRow,
  OBIS,
  type Page,
} from '@meterdesk/contracts';
import { inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meter } from '../../db/schema';
import { foldPending } from '../../readings/rollups';
import { profileRows } from '../../readings/rows';
import { ReadingWriter } from '../../readings/writer';
import { dcuAt, gridNode, meterAt, userOfGrid } from '../../test/archive-fixtures';
import { createTestApp, type TestApp } from '../../test/harness';
import { fieldIssues } from '../../test/issues';

const DAY_MS = 86_400_000;
const daysAgo = (n: number) => new Date(Date.now() - n * DAY_MS).toISOString().slice(0, 10);
const D = daysAgo(2);
const BEFORE = daysAgo(3);
/** Intervals `from`…`to` (1-based: interval 96 ends at 24:00) of `day`, power rising a watt an interval from `base`. */
const intervals = (day: string, base: number, from = 1, to = 96) =>
  Array.from({ length: to - from + 1 }, (_, i) => ({
    ts: new Date(Date.parse(`${day}T00:00:00Z`) + (from + i) * 15 * 60_000).toISOString(),
    values: { [OBIS.activePower]: base + from + i, [OBIS.voltageL1]: 2301, [OBIS.currentL1]: 5500 },
  }));

describe('load profile analytics', () => {
  let t: TestApp;
  let scoped: string;
  let dcuId: string;
  const m: Record<'a' | 'b' | 'x' | 'w' | 'c', { id: string; devAddr: string }> = {} as never;

  beforeAll(async () => {
    t = await createTestApp();
    const area = await gridNode(t);
    const other = await gridNode(t);
    dcuId = (await dcuAt(t, area)).id;
    m.a = await meterAt(t, area, undefined, dcuId);
    m.b = await meterAt(t, area);
    m.x = await meterAt(t, area);
    m.w = await meterAt(t, area); // in the warehouse: listed, but no report expects it
    m.c = await meterAt(t, other);
    await t.db
      .update(meter)
      .set({ status: 2 })
      .where(inArray(meter.id, [m.a.id, m.b.id, m.x.id, m.c.id]));
    await new ReadingWriter(t.database).write({
      profile: [
        ...profileRows(m.a.id, [...intervals(BEFORE, 100, 1, 48), ...intervals(D, 1000)]),
        ...profileRows(m.b.id, intervals(D, 5000, 1, 10)),
        ...profileRows(m.c.id, intervals(D, 0)),
      ],
    });
    await foldPending(t.db);
    scoped = await userOfGrid(t, area, [LOAD_PROFILE_RES.page, LOAD_PROFILE_RES.detail]);
  });
  afterAll(() => t.close());

  it("lists the scope's meters with their day's profile completeness and peak, from the day rollups", async () => {
    const res = await t.call<Page<LoadProfileRow>>('/analytics/loadProfile/list', { startDay: D, endDay: D }, scoped);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.total).toBe(4);
    const rows = Object.fromEntries(res.body.data.list.map((r) => [r.devAddr, r]));
    expect(rows[m.a.devAddr]).toMatchObject({ state: 'complete', intervals: 96, completeness: 100, demandMax: 1.096 });
    expect(rows[m.b.devAddr]).toMatchObject({ state: 'partial', intervals: 10, completeness: 10.4, demandMax: 5.01 });
    expect(rows[m.x.devAddr]).toMatchObject({ state: 'none', intervals: 0, demandMax: null });
    expect(rows[m.c.devAddr]).toBeUndefined();

    const partial = await t.call<Page<LoadProfileRow>>(
      '/analytics/loadProfile/list',
      { startDay: D, endDay: D, state: 'partial' },
      scoped,
    );
    expect(partial.body.data.list.map((r) => r.devAddr)).toEqual([m.b.devAddr]);
    const byPeak = await t.call<Page<LoadProfileRow>>(
      '/analytics/loadProfile/list',
      { startDay: D, endDay: D, sortField: 'demandMax', sortOrder: 'descend', pageSize: 2 },
      scoped,
    );
    expect(byPeak.body.data.list.map((r) => r.devAddr)).toEqual([m.b.devAddr, m.a.devAddr]);
  });

  it('counts the meters expected to report by profile state, from the grid rows or the meters', async () => {
    const res = await t.call<{ figures: unknown; points: unknown }>(
      '/analytics/loadProfile/summary',
      { startDay: D, endDay: D },
      scoped,
    );
    expect(res.body.data).toEqual({
      figures: { meters: 3, metersComplete: 1, metersPartial: 1, metersNone: 1, completeness: 36.8, demandMax: 5.01 },
      points: [
        { state: 'complete', meters: 1 },
        { state: 'partial', meters: 1 },
        { state: 'none', meters: 1 },
      ],
    });
    const dcu = await t.call<{ figures: unknown }>(
      '/analytics/loadProfile/summary',
      { startDay: D, endDay: D, dcuId },
      scoped,
    );
    expect(dcu.body.data.figures).toEqual({
      meters: 1,
      metersComplete: 1,
      metersPartial: 0,
      metersNone: 0,
      completeness: 100,
      demandMax: 1.096,
    });
  });

  it('overlays several meters on one day, read by meter and day', async () => {
    const body = { startDay: D, endDay: D, meterIds: [m.a.id, m.b.id] };
    const res = await t.call<{
      figures: unknown;
      points: { slot: string; curve: string; activePower: number | null; voltageL1: number | null }[];
    }>('/analytics/loadProfileDetail/summary', body, scoped);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.figures).toEqual({
      curves: 2,
      intervals: 106,
      expected: 192,
      demandMax: 5.01,
      peakAt: new Date(Date.parse(`${D}T00:00:00Z`) + 150 * 60_000).toISOString(),
    });
    const curves = new Set(res.body.data.points.map((p) => p.curve));
    expect(curves).toEqual(new Set([m.a.devAddr, m.b.devAddr]));
    // The interval ending at 24:00 is its day's last.
    const a = res.body.data.points.filter((p) => p.curve === m.a.devAddr);
    expect([a[0], a.at(-1)]).toMatchObject([
      { slot: '00:15', activePower: 1.001, voltageL1: 230.1 },
      { slot: '24:00', activePower: 1.096 },
    ]);

    const rows = await t.call<Page<LoadProfileIntervalRow>>(
      '/analytics/loadProfileDetail/list',
      { ...body, pageSize: 2 },
      scoped,
    );
    expect(rows.body.data.total).toBe(106);
    expect(rows.body.data.list.map((r) => [r.ts, r.currentL1])).toEqual([
      [`${D}T00:15:00.000Z`, 5.5],
      [`${D}T00:15:00.000Z`, 5.5],
    ]);
  });

  it("overlays one meter's days, each a curve named by its day", async () => {
    const res = await t.call<{ figures: { curves: number }; points: { curve: string }[] }>(
      '/analytics/loadProfileDetail/summary',
      { startDay: BEFORE, endDay: D, meterIds: [m.a.id] },
      scoped,
    );
    expect(res.body.data.figures.curves).toBe(2);
    expect(new Set(res.body.data.points.map((p) => p.curve))).toEqual(new Set([BEFORE, D]));
  });

  it('refuses too many curves, too long a period and meters outside the scope before reading anything', async () => {
    const eleven = Array.from({ length: 11 }, () => m.a.id);
    const cases: [string, object, [string, string], number][] = [
      [
        'loadProfileDetail',
        { startDay: BEFORE, endDay: D, meterIds: [m.a.id, m.b.id] },
        ['meterIds', 'overlayOneDay'],
        400,
      ],
      ['loadProfileDetail', { startDay: D, endDay: D, meterIds: eleven }, ['meterIds', 'tooLong'], 400],
      ['loadProfileDetail', { startDay: D, endDay: D, meterIds: [] }, ['meterIds', 'mandatory'], 400],
      [
        'loadProfileDetail',
        { startDay: daysAgo(9), endDay: D, meterIds: [m.a.id] },
        ['endDay', 'timeRangeTooLong'],
        400,
      ],
      ['loadProfileDetail', { startDay: D, endDay: D, meterIds: [m.a.id, m.c.id] }, ['meterIds', 'notFound'], 404],
      ['loadProfile', { startDay: BEFORE, endDay: D }, ['endDay', 'timeRangeTooLong'], 400],
      ['loadProfile', { startDay: daysAgo(-1), endDay: daysAgo(-1) }, ['endDay', 'dateAfterToday'], 400],
      ['loadProfile', { startDay: D, endDay: D, state: 'some' }, ['state', 'invalidValue'], 400],
    ];
    for (const [page, body, issue, status] of cases) {
      const res = await t.call(`/analytics/${page}/summary`, body, scoped);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(fieldIssues(res.body)).toContainEqual(issue);
    }
  });
});
