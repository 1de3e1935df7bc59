import type { ImportStatus, Page, Supplier } from '@meterdesk/contracts';
import { and, eq, sql } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { archiveImport, supplier, sysLog } from '../../../db/schema';
import { defineJob, JobSystem } from '../../../jobs/job-system';
import { createTestApp, type TestApp } from '../../../test/harness';
import { supplierImport } from '../supplier.archive';
import { importStatus, runImport, startImport } from './import-kit';
import { downloadTemplate, type ZipPart, zipFile } from './import-testing';
import { checkUnpackedSize } from './workbook';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const settle = { timeout: 60_000, interval: 200 };

async function workbook(rows: ExcelJS.CellValue[][]): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('Sheet1');
  for (const row of rows) sheet.addRow(row);
  return Buffer.from(await book.xlsx.writeBuffer());
}

/** A zip whose directory says one entry unpacks to 4 GB − 1: refused before anything inflates. */
function zipBomb(): Buffer {
  const name = Buffer.from('xl/worksheets/sheet1.xml');
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt32LE(1000, 20);
  central.writeUInt32LE(0xfffffffe, 24);
  central.writeUInt16LE(name.length, 28);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + name.length, 12);
  end.writeUInt32LE(0, 16);
  return Buffer.concat([central, name, end]);
}

describe('archive imports (the supplier import)', () => {
  let t: TestApp;
  let admin: string;

  beforeAll(async () => {
    t = await createTestApp({}, { jobs: true });
    admin = await t.loginAdmin();
  });
  afterAll(() => t.close());

  const upload = async (file: Buffer, fileName = 'suppliers.xlsx', cookie = admin) => {
    const res = await t.app.http.inject({
      method: 'POST',
      url: '/apis/supplier/import',
      payload: file,
      headers: { cookie, 'content-type': XLSX, 'x-file-name': encodeURIComponent(fileName) },
    });
    return { status: res.statusCode, body: res.json() as { data: { importId: string; jobId: string } } };
  };
  const finished = async (importId: string) => {
    let status: ImportStatus | undefined;
    await vi.waitFor(async () => {
      status = (await t.call<ImportStatus>('/supplier/importstatus', { importId }, admin)).body.data;
      expect(['done', 'failed']).toContain(status?.state);
    }, settle);
    return status as ImportStatus;
  };
  const supplierCount = async () => (await t.db.select({ n: sql<number>`count(*)::int` }).from(supplier))[0]!.n;

  it('offers a template whose headers the import reads back', async () => {
    const book = await downloadTemplate(t, 'supplier', admin);
    const headers = book.worksheets[0]!.getRow(1).values as string[];
    expect(headers.slice(1, 3)).toEqual(['Supplier code *', 'Supplier name *']);
    const rows = [headers.slice(1), ['TPL1', 'From the template', '', '', '', '']];
    const started = await upload(await workbook(rows));
    expect((await finished(started.body.data.importId)).state).toBe('done');
  });

  it('imports a valid file whose headers are Chinese labels or keys, formulas read as their cached value', async () => {
    const before = await supplierCount();
    const file = await workbook([
      ['供应商编码', 'supplierName', '电话', '备注'],
      ['ZH01', '华立', '0571-1', '=not a formula'],
      [{ formula: '"ZH"&"02"', result: 'ZH02' } as ExcelJS.CellFormulaValue, '威胜', '', ''],
    ]);
    const started = await upload(file, '供应商.xlsx');
    expect(started.status).toBe(200);
    const status = await finished(started.body.data.importId);
    expect(status).toMatchObject({ state: 'done', total: 2, imported: 2, errorCount: 0, fileName: '供应商.xlsx' });
    expect(await supplierCount()).toBe(before + 2);
    const list = await t.call<Page<Supplier>>('/supplier/list', { supplierCode: 'ZH0' }, admin);
    expect(list.body.data.list.map((s) => [s.supplierCode, s.supplierName, s.remark])).toEqual([
      ['ZH01', '华立', '=not a formula'],
      ['ZH02', '威胜', ''],
    ]);
    const [kept] = await t.db.select().from(archiveImport).where(eq(archiveImport.id, started.body.data.importId));
    expect(kept?.content).toBeNull();
  });

  it('writes nothing when one row of 10,000 is bad, and lists every bad row with line, column and cause', async () => {
    const before = await supplierCount();
    const rows: ExcelJS.CellValue[][] = [['supplierCode', 'supplierName']];
    for (let i = 0; i < 10_000; i++) rows.push([`BULK${i}`, `Bulk supplier ${i}`]);
    rows[5_001] = ['BAD CODE!', 'Bulk supplier 5000'];
    rows.push(['BULK7', 'Again']);
    rows.push(['ZH01', 'Taken code']);
    const started = await upload(await workbook(rows));
    const status = await finished(started.body.data.importId);
    expect(status.state).toBe('failed');
    expect(status.imported).toBe(0);
    expect(status.errors).toEqual([
      {
        line: 5002,
        column: 'supplierCode',
        columnLetter: 'A',
        code: 'codeFormat',
        cause: 'Only letters and digits are allowed: BAD CODE!',
      },
      {
        line: 10_002,
        column: 'supplierCode',
        columnLetter: 'A',
        code: 'importDuplicateInFile',
        cause: 'The same value appears twice in the file: BULK7 (line 9)',
      },
      { line: 10_003, column: 'supplierCode', columnLetter: 'A', code: 'existed', cause: 'existed: ZH01' },
    ]);
    expect(await supplierCount()).toBe(before);
  }, 120_000);

  it('reads a workbook as another program lays it out: the first sheet of the workbook, every kind of cell', async () => {
    const xml = (body: string) => `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n${body}`;
    const main = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
    const rels = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
    const sheet = (rows: string) =>
      xml(`<worksheet ${main} ${rels}><dimension ref="A1:D9"/><sheetData>${rows}</sheetData></worksheet>`);
    const parts = (rows: string): ZipPart[] => [
      {
        name: 'xl/workbook.xml',
        text: xml(
          `<workbook ${main} ${rels}><sheets><sheet name="Suppliers" sheetId="2" r:id="rId2"/><sheet name="Notes" sheetId="1" r:id="rId1"/></sheets></workbook>`,
        ),
      },
      {
        name: 'xl/_rels/workbook.xml.rels',
        text: xml(
          '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
            '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>' +
            '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="/xl/worksheets/sheet2.xml"/>' +
            '<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="strings.xml"/>' +
            '</Relationships>',
        ),
      },
      // The workbook's first sheet, stored before the shared strings as Excel stores it.
      { name: 'xl/worksheets/sheet2.xml', text: sheet(rows) },
      {
        name: 'xl/worksheets/sheet1.xml',
        text: sheet('<row r="1"><c r="A1" t="inlineStr"><is><t>not this sheet</t></is></c></row>'),
        stored: true,
      },
      {
        name: 'xl/strings.xml',
        text: xml(
          `<sst ${main} count="4" uniqueCount="4">` +
            '<si><t>supplierCode</t></si>' +
            '<si><t>supplierName</t></si>' +
            '<si><r><rPr><b/></rPr><t>Hua</t></r><r><t xml:space="preserve">li </t></r></si>' +
            '<si><t>许继</t><rPh sb="0" eb="2"><t>シュージ</t></rPh></si>' +
            '</sst>',
        ),
      },
    ];
    const header =
      '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c>' +
      '<c r="C1" t="inlineStr"><is><t>phone</t></is></c><c r="D1" t="inlineStr"><is><t>remark</t></is></c></row>';
    const rows =
      // An inline string, shared rich text, a number where a phone number goes, rich text inline.
      '<row r="2"><c r="A2" t="inlineStr"><is><t>RDR1</t></is></c><c r="B2" t="s"><v>2</v></c><c r="C2"><v>13800000001</v></c>' +
      '<c r="D2" t="inlineStr"><is><r><t>in</t></r><r><t>line</t></r></is></c></row>' +
      // A formula's cached text (never evaluated), a string with a phonetic guide, TRUE, an error.
      '<row r="3"><c r="A3" t="str"><f>"RDR"&amp;"2"</f><v>RDR2</v></c><c r="B3" t="s"><v>3</v></c>' +
      '<c r="C3" t="e"><v>#N/A</v></c><c r="D3" t="b"><v>1</v></c></row>' +
      '<row r="4"/>' +
      // Cells without references take the next column; entities are read as text; with no styles part a
      // number shows no date, so it is its serial.
      '<row r="5"><c t="inlineStr"><is><t>RDR3</t></is></c><c t="inlineStr"><is><t>&lt;Tom &amp; Co&gt;</t></is></c>' +
      '<c/><c s="1"><v>45292</v></c></row>';
    const started = await upload(zipFile(parts(header + rows)));
    expect(await finished(started.body.data.importId)).toMatchObject({ state: 'done', total: 3, imported: 3 });
    const list = await t.call<Page<Supplier>>('/supplier/list', { supplierCode: 'RDR' }, admin);
    expect(list.body.data.list.map((s) => [s.supplierCode, s.supplierName, s.phone, s.remark])).toEqual([
      ['RDR1', 'Huali', '13800000001', 'inline'],
      ['RDR2', '许继', '', 'true'],
      ['RDR3', '<Tom & Co>', '', '45292'],
    ]);

    // Lines are Excel's, gaps included; the column is the header the file gave it.
    const bad = await finished(
      (
        await upload(
          zipFile(
            parts(
              `${header}<row r="7"><c r="A7" t="inlineStr"><is><t>BAD!</t></is></c><c r="B7" t="inlineStr"><is><t>Bad</t></is></c></row>`,
            ),
          ),
        )
      ).body.data.importId,
    );
    expect(bad.errors).toEqual([
      {
        line: 7,
        column: 'supplierCode',
        columnLetter: 'A',
        code: 'codeFormat',
        cause: 'Only letters and digits are allowed: BAD!',
      },
    ]);
  });

  it('refuses a zip entry that inflates past the size its directory declares', async () => {
    const lying = zipFile([
      {
        name: 'xl/worksheets/sheet1.xml',
        text: `<worksheet><sheetData>${'<row/>'.repeat(50_000)}</sheetData></worksheet>`,
        declaredSize: 1000,
      },
    ]);
    const status = await finished((await upload(lying)).body.data.importId);
    expect(status).toMatchObject({ state: 'failed', imported: 0 });
    expect(status.errors).toEqual([
      expect.objectContaining({
        code: 'importFileInvalid',
        cause: expect.stringContaining('larger than its directory says'),
      }),
    ]);
  });

  it('refuses what is not a workbook, a missing required column and a zip bomb, writing nothing', async () => {
    await expect(checkUnpackedSize(zipBomb())).rejects.toMatchObject({ key: 'importFileTooLarge' });
    const bomb = await finished((await upload(zipBomb())).body.data.importId);
    expect(bomb.errors[0]?.code).toBe('importFileTooLarge');
    const text = await finished((await upload(Buffer.from('code,name\nA,B'))).body.data.importId);
    expect(text.errors[0]?.code).toBe('importFileInvalid');
    const missing = await finished((await upload(await workbook([['supplierName'], ['No code']]))).body.data.importId);
    expect(missing.errors).toEqual([
      expect.objectContaining({ code: 'importColumnMissing', cause: expect.stringContaining('supplierCode') }),
    ]);
    const json = await t.app.http.inject({
      method: 'POST',
      url: '/apis/supplier/import',
      payload: { file: 'x' },
      headers: { cookie: admin },
    });
    expect(json.statusCode).toBe(400);
  });

  /** A user of its own allowed the supplier import, so its log entries are told from those of the other tests. */
  const ownImporter = async (username: string) => {
    const role = await t.createRole(`${username}-role`, [
      '/parameterSetting',
      '/parameterSetting/supplier',
      '/parameterSetting/supplier/import',
    ]);
    await t.createUser({ username, password: 'Import1', roleIds: [role] });
    return t.login(username, 'Import1');
  };

  it('logs an upload in the operation log by its size and file name, never its bytes', async () => {
    const file = await workbook([
      ['supplierCode', 'supplierName'],
      ['LOG1', 'Logged'],
    ]);
    expect((await upload(file, '审计.xlsx', await ownImporter('log.importer'))).status).toBe(200);
    let entry: typeof sysLog.$inferSelect | undefined;
    await vi.waitFor(async () => {
      [entry] = await t.db
        .select()
        .from(sysLog)
        .where(and(eq(sysLog.requestUrl, '/apis/supplier/import'), eq(sysLog.username, 'log.importer')));
      expect(entry).toBeDefined();
    }, settle);
    expect(JSON.parse(entry?.content ?? '')).toEqual({
      page: '/parameterSetting/supplier/import',
      body: { bytes: file.length, fileName: '审计.xlsx' },
    });
  });

  it('refuses a file name with a control character or a broken encoding, naming the header, and logs the refusal', async () => {
    const cookie = await ownImporter('odd.importer');
    const file = await workbook([['supplierCode', 'supplierName']]);
    const nul = await upload(file, 'a\u0000.xlsx', cookie);
    const broken = await t.app.http.inject({
      method: 'POST',
      url: '/apis/supplier/import',
      payload: file,
      headers: { cookie, 'content-type': XLSX, 'x-file-name': '%E0%A4%A.xlsx' },
    });
    expect(nul.status).toBe(400);
    expect(nul.body).toMatchObject({ data: { issues: [{ field: 'x-file-name', key: 'invalidCharacter' }] } });
    expect(broken.statusCode).toBe(400);
    expect(broken.json()).toMatchObject({ data: { issues: [{ field: 'x-file-name', key: 'invalidValue' }] } });
    await vi.waitFor(async () => {
      const entries = await t.db
        .select()
        .from(sysLog)
        .where(and(eq(sysLog.username, 'odd.importer'), eq(sysLog.logType, 'operation')));
      expect(entries.map((e) => [e.requestUrl, e.result])).toEqual([
        ['/apis/supplier/import', 400],
        ['/apis/supplier/import', 400],
      ]);
    }, settle);
  });

  it('shows an import only to the user who started it', async () => {
    const started = await upload(
      await workbook([
        ['supplierCode', 'supplierName'],
        ['OWN1', 'Own'],
      ]),
    );
    await finished(started.body.data.importId);
    const role = await t.createRole('supplier-importer', [
      '/parameterSetting',
      '/parameterSetting/supplier',
      '/parameterSetting/supplier/import',
    ]);
    await t.createUser({ username: 'other.importer', password: 'Import1', roleIds: [role] });
    const other = await t.login('other.importer', 'Import1');
    expect((await t.call('/supplier/importstatus', { importId: started.body.data.importId }, other)).status).toBe(404);
  });
});

describe('an import cut off by a restart', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const jobsWith = async (definition: typeof supplierImport, retryLimit = 2) => {
    const system = new JobSystem(t.database, {
      log: { debug() {}, info() {}, warn() {}, error() {} },
      publish: async () => {},
      pollingIntervalSeconds: 0.5,
      stopTimeoutMs: 1000,
    });
    system.register(
      defineJob<{ importId: string }>({
        name: 'archive-import',
        retryDelaySeconds: 0,
        retryLimit,
        handler: ({ importId }, job) => runImport(t.database, new Map([['supplier', definition]]), importId, job),
      }),
    );
    await system.start();
    return system;
  };
  const started = async (system: JobSystem, rows: string[][]) => {
    const [admin] = await t.db
      .execute(sql`select id from sys_user where username = 'admin'`)
      .then((r) => (r as unknown as { rows: { id: string }[] }).rows);
    const { importId } = await startImport(
      t.database,
      (id, startedBy) => system.send('archive-import', { importId: id }, { startedBy }),
      {
        entity: 'supplier',
        file: await workbook([['supplierCode', 'supplierName'], ...rows]),
        fileName: 'restart.xlsx',
        userId: admin!.id,
        username: 'admin',
        language: 1,
      },
    );
    return importId;
  };

  it('runs again after the restart and writes its rows exactly once', async () => {
    let hang = true;
    const hanging: typeof supplierImport = {
      ...supplierImport,
      pass: (ctx) => {
        const check = supplierImport.pass(ctx);
        return async (rows) => {
          if (hang) await new Promise(() => {});
          return check(rows);
        };
      },
    };
    const first = await jobsWith(hanging);
    const importId = await started(first, [
      ['RST1', 'Restarted'],
      ['RST2', 'Restarted too'],
    ]);
    await vi.waitFor(async () => {
      const [row] = await t.db.select().from(archiveImport).where(eq(archiveImport.id, importId));
      expect(row?.state).toBe('checking');
    }, settle);
    await first.stop();
    expect((await t.db.select().from(supplier).where(eq(supplier.supplierCode, 'RST1'))).length).toBe(0);

    hang = false;
    const second = await jobsWith(supplierImport);
    await vi.waitFor(async () => {
      const [row] = await t.db.select().from(archiveImport).where(eq(archiveImport.id, importId));
      expect(row?.state).toBe('done');
    }, settle);
    await second.stop();
    expect((await t.db.select().from(supplier).where(sql`${supplier.supplierCode} like 'RST%'`)).length).toBe(2);
    await runImport(t.database, new Map([['supplier', supplierImport]]), importId, { progress: async () => {} });
    expect((await t.db.select().from(supplier).where(sql`${supplier.supplierCode} like 'RST%'`)).length).toBe(2);
  }, 120_000);

  it('fails for good, writing nothing, once its job has given up', async () => {
    const failing: typeof supplierImport = {
      ...supplierImport,
      pass: () => async () => {
        throw new Error('the database went away');
      },
    };
    const system = await jobsWith(failing, 0);
    const importId = await started(system, [['GVU1', 'Given up']]);
    const jobState = (jobId: string) => system.getJob(jobId);
    const [{ jobId }] = (await t.db
      .select({ jobId: archiveImport.jobId })
      .from(archiveImport)
      .where(eq(archiveImport.id, importId))) as [{ jobId: string }];
    await vi.waitFor(async () => expect((await system.getJob(jobId))?.state).toBe('failed'), settle);

    expect(await importStatus(t.db, importId, 'admin', jobState)).toMatchObject({
      state: 'failed',
      imported: 0,
      errorCount: 1,
      errors: [expect.objectContaining({ line: 1, code: 'importAbandoned' })],
    });
    const [row] = await t.db.select().from(archiveImport).where(eq(archiveImport.id, importId));
    expect(row?.content).toBeNull();
    expect(await t.db.select().from(supplier).where(eq(supplier.supplierCode, 'GVU1'))).toEqual([]);
    await system.stop();
  }, 120_000);
});
