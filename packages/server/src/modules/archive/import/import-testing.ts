import type { ImportStatus } from '@meterdesk/contracts';
import { sql } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { expect, vi } from 'vitest';
import { commModule, consumer, meter, poc } from '../../../db/schema';
import type { TestApp } from '../../../test/harness';

/** What the tests of the archive imports share: files, uploads, the outcome, and the tables' sizes. */

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const settle = { timeout: 120_000, interval: 200 };

export async function workbook(rows: ExcelJS.CellValue[][]): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('Sheet1');
  for (const row of rows) sheet.addRow(row);
  return Buffer.from(await book.xlsx.writeBuffer());
}

/** Uploads `rows` as an .xlsx to `/apis/<entity>/import` and waits for the job's outcome. */
export async function importRows(
  t: TestApp,
  entity: string,
  rows: ExcelJS.CellValue[][],
  cookie: string,
): Promise<ImportStatus> {
  const res = await t.app.http.inject({
    method: 'POST',
    url: `/apis/${entity}/import`,
    payload: await workbook(rows),
    headers: { cookie, 'content-type': XLSX, 'x-file-name': encodeURIComponent(`${entity}.xlsx`) },
  });
  expect(res.statusCode).toBe(200);
  const { importId } = (res.json() as { data: { importId: string } }).data;
  let status: ImportStatus | undefined;
  await vi.waitFor(async () => {
    status = (await t.call<ImportStatus>(`/${entity}/importstatus`, { importId }, cookie)).body.data;
    expect(['done', 'failed']).toContain(status?.state);
  }, settle);
  return status as ImportStatus;
}

/** How many rows each table an import may write holds. */
export async function archiveCounts(t: TestApp) {
  const count = async (table: typeof consumer | typeof commModule | typeof meter | typeof poc) =>
    (await t.db.select({ n: sql<number>`count(*)::int` }).from(table))[0]?.n ?? 0;
  return {
    consumer: await count(consumer),
    commModule: await count(commModule),
    meter: await count(meter),
    poc: await count(poc),
  };
}
