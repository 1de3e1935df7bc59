import {
  ACTIVE_IMPORT_RATES,
  CUMULATIVE_ENERGY_RES,
  type CumulativeEnergyRow,
  ENERGY_GAIN_RES,
  type EnergyGainNodeRow,
  type EnergyGainRow,
  OBIS,
  type Page,
  type RegisterDayRow,
} from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poc } from '../../db/schema';
import { foldPending } from '../../readings/rollups';
import { dailyRows } from '../../readings/rows';
import { ReadingWriter } from '../../readings/writer';
import { dcuAt, exportedRows, gridNode, meterAt, suppliedMeter, userOfGrid } from '../../test/archive-fixtures';
import { createTestApp, type TestApp } from '../../test/harness';
import { fieldIssues } from '../../test/issues';
import { pdfText } from '../../test/pdf-text';

const DAY_MS = 86_400_000;
const daysAgo = (n: number) => new Date(Date.now() - n * DAY_MS).toISOString().slice(0, 10);
/** The registers frozen at the end of `day`: active import (Wh) split 4:3:2:1 over T1–T4, export a tenth. */
const frozen = (day: string, wh: number) => ({
  ts: new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString(),
  values: {
    [OBIS.activeImport]: wh,
    [ACTIVE_IMPORT_RATES[0]]: (wh * 4) / 10,
    [ACTIVE_IMPORT_RATES[1]]: (wh * 3) / 10,
    [ACTIVE_IMPORT_RATES[2]]: (wh * 2) / 10,
    [ACTIVE_IMPORT_RATES[3]]: wh / 10,
    [OBIS.activeExport]: wh / 10,
    [OBIS.reactiveImport]: wh / 2,
  },
});
type Summary<F> = { figures: F; points: Record<string, unknown>[] };

describe('cumulative energy and energy gain (registers at a date, gains between two)', () => {
  let t: TestApp;
  let admin: string;
  let scoped: string;
  let area: string;
  let feederA: string;
  let feederB: string;
  let other: string;
  let dcu: { id: string; dcuNo: string };
  const m = {} as Record<'a' | 'b' | 'old' | 'fitted' | 'reset' | 'silent' | 'c', { id: string; devAddr: string }>;
  // The gain's period: its registers at the start are those frozen at the end of OPENS.
  const OPENS = daysAgo(6);
  const START = daysAgo(5);
  const END = daysAgo(2);
  const PERIOD = { startDay: START, endDay: END };
  const AT = { startDay: END, endDay: END };

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
    area = await gridNode(t);
    feederA = await gridNode(t, area);
    feederB = await gridNode(t, area);
    other = await gridNode(t);
    dcu = await dcuAt(t, feederA);
    m.a = await meterAt(t, feederA, undefined, dcu.id);
    m.b = await meterAt(t, feederA);
    m.old = await suppliedMeter(t, feederB);
    m.fitted = await meterAt(t, feederB);
    m.reset = await meterAt(t, feederB);
    m.silent = await meterAt(t, feederB);
    m.c = await meterAt(t, other);
    await new ReadingWriter(t.database).write({
      daily: [
        // a: 5.5 kWh over the period.
        ...dailyRows(m.a.id, [frozen(OPENS, 10_000), frozen(daysAgo(3), 14_000), frozen(END, 15_500)]),
        // b: its last day is missing, so the date shows the day before and it has no gain.
        ...dailyRows(m.b.id, [frozen(OPENS, 5_000), frozen(daysAgo(3), 6_000)]),
        // old: replaced during the period (its recorded total 21 kWh), fitted: from 0.5 kWh then.
        ...dailyRows(m.old.id, [frozen(OPENS, 20_000)]),
        ...dailyRows(m.fitted.id, [frozen(END, 3_500)]),
        // reset: its register went back to almost nothing.
        ...dailyRows(m.reset.id, [frozen(OPENS, 50_000), frozen(END, 1_000)]),
        // c, in another grid: 9 kWh.
        ...dailyRows(m.c.id, [frozen(OPENS, 1_000), frozen(END, 10_000)]),
      ],
    });
    await foldPending(t.db);
    const [fittedAt] = await t.db.select({ id: poc.id }).from(poc).where(eq(poc.meterId, m.old.id));
    const replaced = await t.call(
      '/poc/replace',
      {
        id: fittedAt?.id,
        newMeterId: m.fitted.id,
        oldActiveTotal: 21,
        oldReactiveTotal: 0,
        newActiveTotal: 0.5,
        newReactiveTotal: 0,
        changeTime: `${daysAgo(4)}T12:00:00Z`,
      },
      admin,
    );
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
    scoped = await userOfGrid(t, area, [
      CUMULATIVE_ENERGY_RES.page,
      CUMULATIVE_ENERGY_RES.detail,
      `${CUMULATIVE_ENERGY_RES.page}/export`,
      ENERGY_GAIN_RES.page,
      `${ENERGY_GAIN_RES.page}/export`,
    ]);
  });
  afterAll(() => t.close());

  describe('cumulative energy', () => {
    it("lists each meter's registers at the date, or the latest day before it, saying which day", async () => {
      const res = await t.call<Page<CumulativeEnergyRow>>('/analytics/cumulativeEnergy/list', AT, scoped);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.total).toBe(6);
      const rows = Object.fromEntries(res.body.data.list.map((r) => [r.devAddr, r]));
      expect(rows[m.a.devAddr]).toMatchObject({
        readingDay: END,
        activeImport: 15.5,
        activeImportT1: 6.2,
        activeImportT2: 4.65,
        activeImportT3: 3.1,
        activeImportT4: 1.55,
        activeExport: 1.55,
        reactiveImport: 7.75,
        reactiveExport: null,
        dcuNo: dcu.dcuNo,
      });
      // A missing day: the day before it, named.
      expect(rows[m.b.devAddr]).toMatchObject({ readingDay: daysAgo(3), activeImport: 6 });
      expect(rows[m.silent.devAddr]).toMatchObject({ readingDay: null, activeImport: null });
      expect(rows[m.c.devAddr]).toBeUndefined();

      const descending = await t.call<Page<CumulativeEnergyRow>>(
        '/analytics/cumulativeEnergy/list',
        { ...AT, sortField: 'devAddr', sortOrder: 'descend', pageSize: 2, curPage: 2 },
        scoped,
      );
      const all = res.body.data.list.map((r) => r.devAddr).sort((x, y) => y.localeCompare(x));
      expect(descending.body.data.list.map((r) => r.devAddr)).toEqual(all.slice(2, 4));
    });

    it('adds up the registers frozen at the date for the summary, from the grid rollups or the meters alike', async () => {
      const res = await t.call<Summary<Record<string, unknown>>>('/analytics/cumulativeEnergy/summary', AT, scoped);
      expect(res.status).toBe(200);
      // a, fitted and reset froze at the date (15.5 + 3.5 + 1 kWh); b shows an earlier day and is not added.
      expect(res.body.data.figures).toEqual({
        meters: 6,
        metersAtDate: 3,
        activeImport: 20,
        activeExport: 2,
        reactiveImport: 10,
        reactiveExport: null,
      });
      expect(res.body.data.points).toEqual([
        { rate: 'T1', activeImport: 8 },
        { rate: 'T2', activeImport: 6 },
        { rate: 'T3', activeImport: 4 },
        { rate: 'T4', activeImport: 2 },
      ]);
      const oneFeeder = await t.call<Summary<Record<string, unknown>>>(
        '/analytics/cumulativeEnergy/summary',
        { ...AT, gridId: feederA },
        scoped,
      );
      const oneDcu = await t.call<Summary<Record<string, unknown>>>(
        '/analytics/cumulativeEnergy/summary',
        { ...AT, dcuId: dcu.id },
        scoped,
      );
      expect(oneFeeder.body.data.figures).toMatchObject({ meters: 2, metersAtDate: 1, activeImport: 15.5 });
      expect(oneDcu.body.data.figures).toMatchObject({ meters: 1, metersAtDate: 1, activeImport: 15.5 });
    });

    it('takes one date, none after today, and answers a node or meter outside the scope as unknown', async () => {
      const tomorrow = daysAgo(-1);
      for (const [body, issue] of [
        [{ startDay: START, endDay: END }, ['endDay', 'timeRangeTooLong']],
        [{ startDay: tomorrow, endDay: tomorrow }, ['endDay', 'dateAfterToday']],
        [{ ...AT, pageSize: 10_000 }, ['pageSize', 'outOfRange']],
      ] as const) {
        const res = await t.call('/analytics/cumulativeEnergy/list', body, scoped);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(fieldIssues(res.body)).toContainEqual(issue);
      }
      for (const [path, body, field] of [
        ['cumulativeEnergy/summary', { gridId: other }, 'gridId'],
        ['cumulativeEnergy/list', { devAddr: m.c.devAddr }, 'devAddr'],
        ['cumulativeEnergyDetail/list', { meterId: m.c.id }, 'meterId'],
      ] as const) {
        const res = await t.call(`/analytics/${path}`, { ...AT, ...body }, scoped);
        expect(res.status, path).toBe(404);
        expect(fieldIssues(res.body)).toEqual([[field, 'notFound']]);
      }
    });

    it("shows one meter's registers day by day in the detail, a line per tariff rate", async () => {
      const res = await t.call<Page<RegisterDayRow>>(
        '/analytics/cumulativeEnergyDetail/list',
        { ...PERIOD, meterId: m.a.id },
        scoped,
      );
      expect(res.body.data.list.map((r) => [r.day, r.activeImport])).toEqual([
        [END, 15.5],
        [daysAgo(3), 14],
      ]);
      const summary = await t.call<Summary<Record<string, unknown>>>(
        '/analytics/cumulativeEnergyDetail/summary',
        { ...PERIOD, meterId: m.a.id },
        scoped,
      );
      expect(summary.body.data.figures).toEqual({
        devAddr: m.a.devAddr,
        lastDay: END,
        activeImport: 15.5,
        activeExport: 1.55,
        daysKnown: 2,
      });
      expect(summary.body.data.points.map((p) => [p.day, p.activeImportT1])).toEqual([
        [START, null],
        [daysAgo(4), null],
        [daysAgo(3), 5.6],
        [END, 6.2],
      ]);
    });

    it('exports the registers at the date as a workbook and a PDF', async () => {
      const rows = await exportedRows(t, 'analytics/cumulativeEnergy', scoped, {
        ...AT,
        columns: ['devAddr', 'readingDay', 'activeImport'],
      });
      expect(rows[0]).toEqual(['Meter SN', 'Frozen on', 'Active import (kWh)']);
      expect(rows).toContainEqual([m.b.devAddr, daysAgo(3), 6]);
      const pdf = await t.app.http.inject({
        method: 'POST',
        url: '/apis/analytics/cumulativeEnergy/export',
        payload: { ...AT, format: 'pdf' },
        headers: { cookie: scoped },
      });
      expect(pdf.statusCode).toBe(200);
      expect(pdfText(pdf.rawPayload)).toContain('Cumulative energy');
    });
  });

  describe('energy gain', () => {
    it('ranks the meters by gain, largest first: a replacement split between its meters, a reset negative and last', async () => {
      const res = await t.call<Page<EnergyGainRow>>('/analytics/energyGain/list', PERIOD, scoped);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.total).toBe(6);
      expect(res.body.data.list.map((r) => [r.devAddr, r.gain])).toEqual([
        [m.a.devAddr, 5.5],
        [m.fitted.devAddr, 3],
        [m.old.devAddr, 1],
        [m.reset.devAddr, -49],
        ...[m.b.devAddr, m.silent.devAddr]
          .sort((x, y) => x.toLowerCase().localeCompare(y.toLowerCase()))
          .map((d) => [d, null]),
      ]);
      const [a] = res.body.data.list;
      expect(a).toMatchObject({ startImport: 10, endImport: 15.5, gainT1: 2.2, gainT4: 0.55, exportGain: 0.55 });
      // The replaced meters' ends are the totals the replacement recorded; their rates are unknown.
      expect(res.body.data.list[1]).toMatchObject({ startImport: 0.5, endImport: 3.5, gainT1: null });
      expect(res.body.data.list[2]).toMatchObject({ startImport: 20, endImport: 21 });

      const smallest = await t.call<Page<EnergyGainRow>>(
        '/analytics/energyGain/list',
        { ...PERIOD, sortField: 'gain', sortOrder: 'ascend', pageSize: 1 },
        scoped,
      );
      expect(smallest.body.data.list.map((r) => r.devAddr)).toEqual([m.reset.devAddr]);
      const bySerial = await t.call<Page<EnergyGainRow>>(
        '/analytics/energyGain/list',
        { ...PERIOD, sortField: 'devAddr', devAddr: m.a.devAddr },
        scoped,
      );
      expect(bySerial.body.data.list.map((r) => [r.devAddr, r.gain])).toEqual([[m.a.devAddr, 5.5]]);
    });

    it('sums the gains that are not negative and counts the registers gone down', async () => {
      const res = await t.call<Summary<Record<string, unknown>>>('/analytics/energyGain/summary', PERIOD, scoped);
      expect(res.body.data.figures).toEqual({ meters: 6, metersWithGain: 4, gain: 9.5, metersDecreased: 1 });
      expect(res.body.data.points).toEqual([
        { name: m.a.devAddr, gain: 5.5 },
        { name: m.fitted.devAddr, gain: 3 },
        { name: m.old.devAddr, gain: 1 },
      ]);
    });

    it("lists the grid nodes below the scope's node, each with its subtree's gain, largest first", async () => {
      const res = await t.call<Page<EnergyGainNodeRow>>('/analytics/energyGainGrid/list', PERIOD, scoped);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.list).toEqual([
        expect.objectContaining({ gridId: feederA, meters: 2, metersWithGain: 1, gain: 5.5, metersDecreased: 0 }),
        expect.objectContaining({ gridId: feederB, meters: 4, metersWithGain: 3, gain: 4, metersDecreased: 1 }),
      ]);
      // A node without children lists itself; the administrator reaches the other grid.
      const leaf = await t.call<Page<EnergyGainNodeRow>>(
        '/analytics/energyGainGrid/list',
        { ...PERIOD, gridId: feederB },
        scoped,
      );
      expect(leaf.body.data.list.map((r) => [r.gridId, r.gain])).toEqual([[feederB, 4]]);
      const otherGrid = await t.call<Page<EnergyGainNodeRow>>(
        '/analytics/energyGainGrid/list',
        { ...PERIOD, gridId: other },
        admin,
      );
      expect(otherGrid.body.data.list.map((r) => [r.gridId, r.gain])).toEqual([[other, 9]]);
      const denied = await t.call('/analytics/energyGainGrid/list', { ...PERIOD, gridId: other }, scoped);
      expect(denied.status).toBe(404);
    });

    it('refuses a period beyond its limit, after today or reversed, before reading anything', async () => {
      for (const [body, issue] of [
        [{ startDay: daysAgo(400), endDay: END }, ['endDay', 'timeRangeTooLong']],
        [{ startDay: START, endDay: daysAgo(-1) }, ['endDay', 'dateAfterToday']],
        [{ startDay: END, endDay: START }, ['startDay', 'timeRangeInvalid']],
        [{ ...PERIOD, sortField: 'gridName' }, ['sortField', 'invalidValue']],
      ] as const) {
        const res = await t.call('/analytics/energyGain/list', body, scoped);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(fieldIssues(res.body)).toContainEqual(issue);
      }
    });

    it('exports the ranking', async () => {
      const rows = await exportedRows(t, 'analytics/energyGain', scoped, { ...PERIOD, columns: ['devAddr', 'gain'] });
      expect(rows.slice(0, 3)).toEqual([
        ['Meter SN', 'Energy gain (kWh)'],
        [m.a.devAddr, 5.5],
        [m.fitted.devAddr, 3],
      ]);
    });
  });
});
