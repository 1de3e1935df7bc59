import { crc32, deflateRawSync } from 'node:zlib';
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

/** A zip entry: its name and text, deflated unless `stored`; `declaredSize` lies about its unpacked size. */
export interface ZipPart {
  name: string;
  text: string;
  stored?: boolean;
  declaredSize?: number;
}

/**
 * A zip of `parts` in the order given, written by hand: a workbook exactly as another program
 * might lay it out (a sheet before its shared strings, rich text, phonetic guides), or a lying one.
 */
export function zipFile(parts: readonly ZipPart[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const name = Buffer.from(part.name);
    const raw = Buffer.from(part.text);
    const data = part.stored ? raw : deflateRawSync(raw);
    const fields = (header: Buffer, at: number) => {
      header.writeUInt16LE(20, at);
      header.writeUInt16LE(part.stored ? 0 : 8, at + 4);
      header.writeUInt32LE(crc32(raw), at + 10);
      header.writeUInt32LE(data.length, at + 14);
      header.writeUInt32LE(part.declaredSize ?? raw.length, at + 18);
      header.writeUInt16LE(name.length, at + 22);
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    fields(local, 4);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    fields(central, 6);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** Uploads `rows` as an .xlsx to `/apis/<entity>/import` and waits for the job's outcome. */
export async function importRows(
  t: TestApp,
  entity: string,
  rows: ExcelJS.CellValue[][],
  cookie: string,
): Promise<ImportStatus> {
  return importFile(t, entity, await workbook(rows), cookie);
}

/** Uploads `file` to `/apis/<entity>/import` and waits for the job's outcome. */
export async function importFile(t: TestApp, entity: string, file: Buffer, cookie: string): Promise<ImportStatus> {
  const res = await t.app.http.inject({
    method: 'POST',
    url: `/apis/${entity}/import`,
    payload: file,
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

/** The template `/apis/<entity>/template` answers, read back. */
export async function downloadTemplate(t: TestApp, entity: string, cookie: string): Promise<ExcelJS.Workbook> {
  const res = await t.app.http.inject({
    method: 'POST',
    url: `/apis/${entity}/template`,
    payload: {},
    headers: { cookie },
  });
  expect(res.statusCode).toBe(200);
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
  return book;
}
