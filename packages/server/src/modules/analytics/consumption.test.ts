import { CONSUMPTION_RES, type ConsumptionDayRow, type ConsumptionRow, OBIS, type Page } from '@meterdesk/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldPending } from '../../readings/rollups';
import { dailyRows, profileRows } from '../../readings/rows';
import { ReadingWriter } from '../../readings/writer';
import { dcuAt, exportedRows, gridNode, meterAt, userOfGrid } from '../../test/archive-fixtures';
import { createTestApp, type TestApp } from '../../test/harness';
import { fieldIssues } from '../../test/issues';
import { pdfText } from '../../test/pdf-text';

const DAY_MS = 86_400_000;
const daysAgo = (n: number) => new Date(Date.now() - n * DAY_MS).toISOString().slice(0, 10);
const at = (day: string, minutes: number) => new Date(Date.parse(`${day}T00:00:00Z`) + minutes * 60_000).toISOString();
/** The registers frozen at the end of `day` (Wh). */
const frozen = (day: string, activeImport: number) => ({
  ts: at(day, 24 * 60),
  values: { [OBIS.activeImport]: activeImport, [OBIS.maxDemand]: 4000 },
});
const demand = (day: string, watts: number) =>
  Array.from({ length: 4 }, (_, i) => ({ ts: at(day, (i + 1) * 15), values: { [OBIS.activePower]: watts + i } }));

describe('consumption analytics (the analytics kit)', () => {
  let t: TestApp;
  let admin: string;
  let scoped: string;
  let area: string;
  let other: string;
  const m: Record<'a' | 'b' | 'c', { id: string; devAddr: string }> = {} as never;
  let dcu: { id: string; dcuNo: string };
  const D0 = daysAgo(4);
  const D1 = daysAgo(3);
  const D2 = daysAgo(2);
  const D3 = daysAgo(1);
  const PERIOD = { startDay: D1, endDay: D2 };

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
    area = await gridNode(t);
    other = await gridNode(t);
    dcu = await dcuAt(t, area);
    m.a = await meterAt(t, area, undefined, dcu.id);
    m.b = await meterAt(t, area);
    m.c = await meterAt(t, other);
    await new ReadingWriter(t.database).write({
      daily: [
        // a: 2 kWh on D1, 3.5 kWh on D2; b: 1 kWh on D1 only; c (another grid): 9 kWh on D1.
        ...dailyRows(m.a.id, [frozen(D0, 10_000), frozen(D1, 12_000), frozen(D2, 15_500)]),
        ...dailyRows(m.b.id, [frozen(D0, 5_000), frozen(D1, 6_000)]),
        ...dailyRows(m.c.id, [frozen(D0, 1_000), frozen(D1, 10_000)]),
      ],
      // b's intervals on D3, but no register frozen after them: the day holds no consumption yet.
      profile: [...profileRows(m.a.id, demand(D2, 2500)), ...profileRows(m.b.id, demand(D3, 800))],
    });
    await foldPending(t.db);
    scoped = await userOfGrid(t, area, [
      CONSUMPTION_RES.page,
      CONSUMPTION_RES.detail,
      `${CONSUMPTION_RES.page}/export`,
    ]);
  });
  afterAll(() => t.close());

  it('lists each meter of the scope with its consumption over the period, from the rollups', async () => {
    const res = await t.call<Page<ConsumptionRow>>('/analytics/consumption/list', PERIOD, scoped);
    expect(res.status).toBe(200);
    // The user of one grid never sees the other grid's meter.
    expect(res.body.data.total).toBe(2);
    const rows = Object.fromEntries(res.body.data.list.map((r) => [r.devAddr, r]));
    expect(rows[m.a.devAddr]).toMatchObject({ consumption: 5.5, daysKnown: 2, dailyAverage: 2.75, dcuNo: dcu.dcuNo });
    expect(rows[m.b.devAddr]).toMatchObject({ consumption: 1, daysKnown: 1 });
    expect(rows[m.c.devAddr]).toBeUndefined();

    const sorted = await t.call<Page<ConsumptionRow>>(
      '/analytics/consumption/list',
      { ...PERIOD, sortField: 'consumption', sortOrder: 'descend', pageSize: 1 },
      scoped,
    );
    expect(sorted.status, JSON.stringify(sorted.body)).toBe(200);
    expect(sorted.body.data.list.map((r) => r.devAddr)).toEqual([m.a.devAddr]);
    expect(sorted.body.data.total).toBe(2);
  });

  it('sums the period per day for the summary strip and the chart, within the scope', async () => {
    const res = await t.call<{
      figures: Record<string, unknown>;
      points: { day: string; consumption: number | null }[];
    }>('/analytics/consumption/summary', PERIOD, scoped);
    expect(res.status).toBe(200);
    expect(res.body.data.points).toEqual([
      { day: D1, consumption: 3 },
      { day: D2, consumption: 3.5 },
    ]);
    expect(res.body.data.figures).toEqual({ meters: 2, consumption: 6.5, dailyAverage: 3.25, peakDay: D2 });
    // A day of intervals and no frozen register is unknown, not 0: the average is over the days known.
    const withD3 = await t.call<{ figures: { dailyAverage: number }; points: { consumption: number | null }[] }>(
      '/analytics/consumption/summary',
      { startDay: D1, endDay: D3 },
      scoped,
    );
    expect(withD3.body.data.points.map((p) => p.consumption)).toEqual([3, 3.5, null]);
    expect(withD3.body.data.figures.dailyAverage).toBe(3.25);
    // Narrowed to one meter the meter rollups answer, not the grid's.
    const one = await t.call<{ points: { consumption: number | null }[] }>(
      '/analytics/consumption/summary',
      { ...PERIOD, devAddr: m.b.devAddr },
      scoped,
    );
    expect(one.body.data.points.map((p) => p.consumption)).toEqual([1, null]);
  });

  it('refuses a period the page does not take before reading anything, naming the field', async () => {
    const tomorrow = new Date(Date.now() + DAY_MS).toISOString().slice(0, 10);
    const cases: [object, [string, string]][] = [
      [{ startDay: D1, endDay: tomorrow }, ['endDay', 'dateAfterToday']],
      [{ startDay: daysAgo(40), endDay: D1 }, ['endDay', 'timeRangeTooLong']],
      [{ startDay: D2, endDay: D1 }, ['startDay', 'timeRangeInvalid']],
      [{ startDay: D1 }, ['endDay', 'mandatory']],
      [{ ...PERIOD, pageSize: 10_000 }, ['pageSize', 'outOfRange']],
      [{ ...PERIOD, consumerType: 'alien' }, ['consumerType', 'invalidValue']],
    ];
    for (const [body, issue] of cases) {
      const res = await t.call('/analytics/consumption/list', body, scoped);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(fieldIssues(res.body)).toContainEqual(issue);
    }
  });

  it('answers a grid node, DCU or meter outside the scope as unknown, naming the field', async () => {
    for (const [body, field] of [
      [{ gridId: other }, 'gridId'],
      [{ devAddr: m.c.devAddr }, 'devAddr'],
      [{ devAddr: 'NO-SUCH-METER' }, 'devAddr'],
      [{ meterId: m.c.id }, 'meterId'],
    ] as const) {
      const path = field === 'meterId' ? '/analytics/consumptionDetail/list' : '/analytics/consumption/list';
      const res = await t.call(path, { ...PERIOD, ...body }, scoped);
      expect(res.status, JSON.stringify(body)).toBe(404);
      expect(fieldIssues(res.body)).toEqual([[field, 'notFound']]);
    }
    // The administrator reaches the other grid.
    const all = await t.call<Page<ConsumptionRow>>('/analytics/consumption/list', { ...PERIOD, gridId: other }, admin);
    expect(all.body.data.list.map((r) => r.devAddr)).toEqual([m.c.devAddr]);
  });

  it("shows one meter's days in the detail, which needs the meter", async () => {
    const missing = await t.call('/analytics/consumptionDetail/list', PERIOD, scoped);
    expect(fieldIssues(missing.body)).toContainEqual(['meterId', 'mandatory']);
    const res = await t.call<Page<ConsumptionDayRow>>(
      '/analytics/consumptionDetail/list',
      { ...PERIOD, meterId: m.a.id },
      scoped,
    );
    expect(res.body.data.list.map((r) => [r.day, r.consumption])).toEqual([
      [D2, 3.5],
      [D1, 2],
    ]);
    expect(res.body.data.list[0]).toMatchObject({ demandMin: 2.5, demandMax: 2.503, intervals: 4 });
  });

  it('exports the rows as a workbook and a PDF with the period', async () => {
    const rows = await exportedRows(t, 'analytics/consumption', scoped, {
      ...PERIOD,
      columns: ['devAddr', 'consumption'],
    });
    expect(rows[0]).toEqual(['Meter SN', 'Consumption (kWh)']);
    expect(rows.slice(1)).toEqual(
      expect.arrayContaining([
        [m.a.devAddr, 5.5],
        [m.b.devAddr, 1],
      ]),
    );
    const pdf = await t.app.http.inject({
      method: 'POST',
      url: '/apis/analytics/consumption/export',
      payload: { ...PERIOD, format: 'pdf' },
      headers: { cookie: scoped },
    });
    expect(pdf.statusCode).toBe(200);
    const text = pdfText(pdf.rawPayload);
    expect(text).toContain('Consumption data');
    expect(text).toContain(`${D1} – ${D2}`);
    expect(text).toContain(m.a.devAddr);
  });
});
