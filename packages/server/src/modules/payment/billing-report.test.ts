import {
  ACTIVE_IMPORT_RATES,
  BILLING_REPORT_RES,
  OBIS,
  type Page,
  type ReportContent,
  type ReportRecord,
} from '@meterdesk/contracts';
import { eq, sql } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newId } from '../../db/ids';
import { billingReport, meter, sysUser, tariff } from '../../db/schema';
import { rollupDay } from '../../readings/rollups';
import { dailyRows } from '../../readings/rows';
import { ReadingWriter } from '../../readings/writer';
import { gridNode, meterAt, tariffOf, userOfGrid } from '../../test/archive-fixtures';
import { createTestApp, type TestApp } from '../../test/harness';
import { runJob } from '../../test/jobs';
import { pdfText } from '../../test/pdf-text';
import { uniqueName } from '../../test/unique';
import { BILLING_REPORT_JOB, BILLING_REPORT_PURGE_JOB } from './billing-report';

const DAY = '2026-10-31';
const BEFORE = '2026-10-30';
const MALL = '/billingreport/shoppingmall';

let t: TestApp;
let admin: string;
let outsider: string;
let gridA: string;
let wing: string;
let ruleId: string;
const id = { main: '', tenant1: '', tenant2: '' };
const serial = { main: '', tenant1: '', tenant2: '' };

/** The registers closing BEFORE and DAY (all on rate 1), in Wh: main 60 kWh on DAY, tenants 20 and 10. */
async function writeReadings() {
  const frozen = (meterId: string, from: number, to: number) =>
    dailyRows(meterId, [
      { ts: `${DAY}T00:00:00.000Z`, values: { [OBIS.activeImport]: from, [ACTIVE_IMPORT_RATES[0] as string]: from } },
      { ts: '2026-11-01T00:00:00.000Z', values: { [OBIS.activeImport]: to, [ACTIVE_IMPORT_RATES[0] as string]: to } },
    ]);
  await new ReadingWriter(t.db).write({
    daily: [
      ...frozen(id.main, 100_000, 160_000),
      ...frozen(id.tenant1, 20_000, 40_000),
      ...frozen(id.tenant2, 10_000, 20_000),
    ],
  });
  await rollupDay(t.db, BEFORE);
  await rollupDay(t.db, DAY);
}

const build = (body: object, cookie = admin, path = MALL) =>
  t.call<{ id: string; jobId: string }>(`${path}/build`, { reportName: uniqueName('Report'), ...body }, cookie);
const list = (cookie = admin, query: object = {}) =>
  t.call<Page<ReportRecord>>(`${MALL}/list`, { pageSize: 100, ...query }, cookie);
const content = (reportId: string, cookie = admin) =>
  t.call<ReportContent>(`${MALL}/content`, { id: reportId }, cookie);
const download = (reportId: string, format: string, cookie = admin) =>
  t.app.http.inject({
    method: 'POST',
    url: `/apis${MALL}/download`,
    payload: { id: reportId, format },
    headers: { cookie },
  });

async function completed(reportId: string): Promise<ReportContent> {
  await vi.waitFor(async () => expect((await content(reportId)).body.data.record.status).not.toBe('building'), {
    timeout: 30_000,
    interval: 100,
  });
  return (await content(reportId)).body.data;
}

beforeAll(async () => {
  t = await createTestApp({}, { jobs: true });
  admin = await t.loginAdmin();
  gridA = await gridNode(t);
  const gridB = await gridNode(t);
  wing = await gridNode(t, gridA);
  const price = await tariffOf(t);
  await t.db.update(tariff).set({ price1: 0.5 }).where(eq(tariff.id, price.id));
  for (const key of ['main', 'tenant1', 'tenant2'] as const) {
    const m = await meterAt(t, key === 'tenant2' ? wing : gridA);
    id[key] = m.id;
    serial[key] = m.devAddr;
    await t.db.update(meter).set({ tariffId: price.id }).where(eq(meter.id, m.id));
  }
  await writeReadings();
  const rule = await t.call<{ id: string }>(
    '/billingrule/save',
    {
      ruleNo: 'R1',
      ruleName: uniqueName('Mall'),
      gridId: gridA,
      handlingFee: 2.5,
      taxes: 10,
      roundingBase: 1,
      chargeMode: 'fixed',
      fixedAmount: 10,
      mainMeterId: id.main,
      tenantMeterIds: [id.tenant1, id.tenant2],
    },
    admin,
  );
  ruleId = rule.body.data.id;
  outsider = await userOfGrid(t, gridB, [BILLING_REPORT_RES.shoppingMall.page, BILLING_REPORT_RES.shoppingMall.export]);
});
afterAll(() => t?.close());

describe('billing reports', () => {
  let reportId: string;

  it('builds a shopping-mall report as a job: building, then completed with each tenant billed', async () => {
    const res = await build({ ruleId, startDay: DAY, endDay: DAY });
    expect(res.status).toBe(200);
    reportId = res.body.data.id;
    const listed = (await list()).body.data.list.find((r) => r.id === reportId);
    expect(listed).toMatchObject({ kind: 'shoppingMall', conditions: { ruleId, startDay: DAY, endDay: DAY } });
    const report = await completed(reportId);
    expect(report.record).toMatchObject({ status: 'completed', progress: 100, failure: null });
    expect(Date.parse(report.record.deleteTime) - Date.parse(report.record.createTime)).toBe(30 * 86_400_000);
    // Common area: 60 − 20 − 10 = 30 kWh at 0.5 = 15, shared 2:1. Tenant 1: 10 + 10 + 10 (fixed) + 2.5
    // = 32.5, taxes 3.25, 35.75 rounded to 1 = 36. Tenant 2: 5 + 5 + 10 + 2.5 = 22.5, 2.25, 25.
    expect(report.rows).toEqual([
      {
        devAddr: serial.tenant1,
        role: 'tenant',
        consumption: 20,
        missingDays: 0,
        energyAmount: 10,
        commonShare: 10,
        charge: 10,
        handlingFee: 2.5,
        taxes: 3.25,
        total: 36,
      },
      {
        devAddr: serial.tenant2,
        role: 'tenant',
        consumption: 10,
        missingDays: 0,
        energyAmount: 5,
        commonShare: 5,
        charge: 10,
        handlingFee: 2.5,
        taxes: 2.25,
        total: 25,
      },
      { devAddr: serial.main, role: 'main', consumption: 60, missingDays: 0 },
      { devAddr: '', role: 'common', consumption: 30, energyAmount: 15 },
      {
        devAddr: '',
        role: 'total',
        consumption: 30,
        energyAmount: 15,
        commonShare: 15,
        charge: 20,
        handlingFee: 5,
        taxes: 5.5,
        total: 61,
      },
    ]);
  });

  it('builds the general, shopping-center and equipment reports from the same rollups', async () => {
    const built = async (path: string, body: object) => {
      const res = await build({ startDay: DAY, endDay: DAY, ...body }, admin, path);
      expect(res.status).toBe(200);
      await vi.waitFor(
        async () =>
          expect(
            (await t.call<ReportContent>(`${path}/content`, { id: res.body.data.id }, admin)).body.data.record.status,
          ).toBe('completed'),
        { timeout: 30_000, interval: 100 },
      );
      return (await t.call<ReportContent>(`${path}/content`, { id: res.body.data.id }, admin)).body.data.rows;
    };
    const general = await built('/billingreport/general', { gridId: gridA });
    expect(general).toHaveLength(3);
    expect(general).toContainEqual(
      expect.objectContaining({ devAddr: serial.tenant2, consumption: 10, missingDays: 0, energyAmount: 5 }),
    );
    const center = await built('/billingreport/shoppingcenter', { gridId: gridA });
    expect(center).toEqual([
      expect.objectContaining({ meters: 2, consumption: 80, energyAmount: 40 }),
      expect.objectContaining({ meters: 1, consumption: 10, energyAmount: 5 }),
    ]);
    const equipment = await built('/billingreport/shoppingequipment', { ruleId });
    expect(equipment).toContainEqual({ devAddr: serial.main, role: 'main', day: DAY, consumption: 60 });
    expect(equipment).toHaveLength(3);
  });

  it('fails a report whose billing rule is gone', async () => {
    const gone = newId();
    await t.db.insert(billingReport).values({
      id: gone,
      kind: 'shoppingMall',
      reportName: 'orphan',
      gridId: gridA,
      ruleId: null,
      conditions: { ruleId: null, ruleName: 'deleted', gridId: gridA, gridName: '', startDay: DAY, endDay: DAY },
      deleteTime: sql`now() + interval '1 day'`,
    });
    await runJob(t, BILLING_REPORT_JOB, { reportId: gone });
    expect((await content(gone)).body.data.record).toMatchObject({ status: 'failed', failure: 'reportRuleGone' });
  });

  it('keeps reports, rules and nodes outside the caller grid scope out of reach (404)', async () => {
    expect((await list(outsider)).body.data.list.map((r) => r.id)).not.toContain(reportId);
    expect((await content(reportId, outsider)).status).toBe(404);
    expect((await download(reportId, 'xlsx', outsider)).statusCode).toBe(404);
    expect((await build({ ruleId, startDay: DAY, endDay: DAY }, outsider)).status).toBe(404);
    expect(
      (await build({ gridId: gridA, startDay: DAY, endDay: DAY }, outsider, '/billingreport/general')).status,
    ).toBe(403);
  });

  it('downloads a completed report as a workbook and as an A4 PDF readable in Chinese', async () => {
    const xlsx = await download(reportId, 'xlsx');
    expect(xlsx.statusCode).toBe(200);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(xlsx.rawPayload as unknown as ArrayBuffer);
    const rows: unknown[][] = [];
    workbook.worksheets[0]?.eachRow((row) => {
      rows.push((row.values as unknown[]).slice(1));
    });
    expect(rows[0]).toEqual([
      'Meter',
      'Role',
      'Consumption (kWh)',
      'Days missing',
      'Energy amount',
      'Common area share',
      'Rule charge',
      'Handling fee',
      'Taxes',
      'Total',
    ]);
    expect(rows[1]).toEqual([serial.tenant1, 'Tenant', 20, 0, 10, 10, 10, 2.5, 3.25, 36]);

    await t.db.update(sysUser).set({ language: 2 }).where(eq(sysUser.username, 'admin'));
    try {
      const zh = await t.loginAdmin();
      const pdf = await download(reportId, 'pdf', zh);
      expect(pdf.headers['content-type']).toBe('application/pdf');
      const text = pdfText(pdf.rawPayload);
      expect(text).toContain('租户合计');
      expect(text).toContain('公摊费用');
      expect(text).toContain(serial.tenant2);
    } finally {
      await t.db.update(sysUser).set({ language: 1 }).where(eq(sysUser.username, 'admin'));
    }
  });

  it('removes a report at its estimated deletion time, and fails a build whose job is gone', async () => {
    await t.db
      .update(billingReport)
      .set({ deleteTime: sql`now() - interval '1 second'` })
      .where(eq(billingReport.id, reportId));
    // A build left building by servers killed until its job's retries ran out.
    const stuck = newId();
    await t.db.insert(billingReport).values({
      id: stuck,
      kind: 'shoppingMall',
      reportName: 'stuck',
      gridId: gridA,
      ruleId,
      conditions: { ruleId, ruleName: 'Mall', gridId: gridA, gridName: '', startDay: DAY, endDay: DAY },
      createTime: sql`now() - interval '4 hours'`,
      deleteTime: sql`now() + interval '1 day'`,
    });
    await runJob(t, BILLING_REPORT_PURGE_JOB);
    expect((await content(reportId)).status).toBe(404);
    expect((await content(stuck)).body.data.record).toMatchObject({ status: 'failed', failure: 'reportInterrupted' });
  });
});
