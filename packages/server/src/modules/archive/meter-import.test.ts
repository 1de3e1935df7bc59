import { type Consumer, METER_RES, type Meter, type Module, type Poc } from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import type ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../../crypto/secret-box';
import { newId } from '../../db/ids';
import { commModule, consumer, dcu, meter, poc, sysUser } from '../../db/schema';
import { firstRecord, tariffOf } from '../../test/archive-fixtures';
import { addGridNode, loginGridUser } from '../../test/grid';
import { createTestApp, type TestApp } from '../../test/harness';
import { runImport, startImport } from './import/import-kit';
import { archiveCounts, importRows, workbook } from './import/import-testing';
import { METER_IMPORT_COLUMNS, meterImport } from './meter-import';

const HEADERS = METER_IMPORT_COLUMNS.map((c) => c.key);
/** A data row in the order of the spec's headers. */
const row = (cells: Record<string, ExcelJS.CellValue>): ExcelJS.CellValue[] => HEADERS.map((key) => cells[key] ?? '');

describe('meter import', () => {
  let t: TestApp;
  let admin: string;
  let gridA: string;
  let gridA1: string;
  let gridB: string;
  let tariffT01: string;

  const first = <T>(path: string, filter: Record<string, string>) => firstRecord<T>(t, admin, path, filter);
  const insertConsumer = async (consumerCode: string, gridId: string) => {
    const id = newId();
    await t.db.insert(consumer).values({
      id,
      consumerCode,
      consumerName: consumerCode,
      consumerType: 'residential',
      paymentMode: 'prepay',
      gridId,
    });
    return id;
  };
  const insertModule = async (moduleNo: string, gridId: string) => {
    const id = newId();
    await t.db.insert(commModule).values({ id, moduleNo, deviceType: 0, workingMode: 'client', gridId });
    return id;
  };
  const insertMeter = async (devAddr: string, gridId: string, moduleId: string | null = null) => {
    const id = newId();
    await t.db.insert(meter).values({ id, devAddr, gridId, moduleId });
    return id;
  };
  const insertPoc = async (pocNo: string, gridId: string, more: Partial<typeof poc.$inferInsert> = {}) => {
    await t.db.insert(poc).values({ id: newId(), pocNo, nature: 1, gridId, ...more });
  };

  beforeAll(async () => {
    t = await createTestApp({}, { jobs: true });
    admin = await t.loginAdmin();
    gridA = await addGridNode(t, 'MIA');
    gridA1 = await addGridNode(t, 'MIA1', gridA);
    gridB = await addGridNode(t, 'MIB');
    tariffT01 = (await tariffOf(t, 'T01')).id;
    const supplierId = (
      await t.call<{ id: string }>('/supplier/save', { supplierCode: 'HX', supplierName: 'Hexing' }, admin)
    ).body.data.id;
    await t.call('/metertype/save', { modelName: 'DDS666', supplierId, wiring: '1P2W', side: 'secondary' }, admin);
    await t.call('/supplier/save', { supplierCode: 'OT', supplierName: 'Other Maker' }, admin);
    await t.db.insert(dcu).values([
      { id: newId(), dcuNo: 'DCUA01', gridId: gridA },
      { id: newId(), dcuNo: 'DCUB01', gridId: gridB },
    ]);
    const existing = await insertConsumer('CEXIST01', gridA);
    const other = await insertConsumer('CEXIST02', gridA);
    await insertConsumer('CB0001', gridB);
    await insertModule('MODFREE1', gridA);
    await insertModule('MODB1', gridB);
    await insertModule('MODSCOPE1', gridA1);
    await insertMeter('MUSED0001', gridA, await insertModule('MODUSED1', gridA));
    await insertPoc('PFREE1', gridA, { consumerId: existing, syncStatus: 1 });
    await insertPoc('PFREE2', gridA, { consumerId: existing });
    await insertPoc('POTHER1', gridA, { consumerId: other });
    await insertPoc('PBUSY1', gridA, { meterId: await insertMeter('MBUSY0001', gridA) });
    await insertPoc('PB1', gridB);
  });
  afterAll(() => t.close());

  it('creates the consumer, the module and the POC of a row, or reuses those the caller has', async () => {
    const before = await archiveCounts(t);
    const status = await importRows(
      t,
      'meter',
      [
        HEADERS,
        row({
          consumerCode: 'CNEW0001',
          consumerName: 'Amal Saleh',
          identityNumber: 'ID-1',
          devAddr: 'MNEW00001',
          moduleNo: 'MODNEW1',
          simNo: '13800000001',
          meterBoxNo: 'BOX-1',
          gridName: 'MIA1',
          supplierName: 'Hexing',
          tariffId: 'T01',
          pocPoint: 'PNEW1',
          pocNature: 'Solar',
          dcuNo: 'DCUA01',
          hesPassword: 'hes-secret-1',
          interfaceType: 'Optical port',
          meterTypeName: 'DDS666',
        }),
        // The consumer the row above makes, a second meter of theirs on a free module of the caller's.
        row({
          consumerCode: 'cnew0001',
          devAddr: 'MNEW00002',
          moduleNo: 'MODFREE1',
          gridName: 'Grid MIA',
          pocPoint: 'PNEW2',
        }),
        // An existing consumer's free POC gets the meter (and the DCU it lacked).
        row({ consumerCode: 'CEXIST01', devAddr: 'MNEW00003', gridName: 'MIA', pocPoint: 'PFREE1', dcuNo: 'DCUA01' }),
        row({ devAddr: 'MNEW00004', gridName: 'MIA' }),
      ],
      admin,
    );
    expect(status).toMatchObject({ state: 'done', total: 4, imported: 4, errorCount: 0 });
    expect(await archiveCounts(t)).toEqual({
      consumer: before.consumer + 1,
      commModule: before.commModule + 1,
      meter: before.meter + 4,
      poc: before.poc + 2,
    });

    expect(await first<Meter>('meter', { devAddr: 'MNEW00001' })).toMatchObject({
      gridId: gridA1,
      gridName: 'Grid MIA1',
      consumerCode: 'CNEW0001',
      consumerName: 'Amal Saleh',
      pocNo: 'PNEW1',
      moduleNo: 'MODNEW1',
      dcuNo: 'DCUA01',
      supplierName: 'Hexing',
      meterTypeName: 'DDS666',
      interfaceType: 'optical',
      meterBoxNo: 'BOX-1',
      tariffId: tariffT01,
      tariffName: 'T01',
      status: 0,
      hesPasswordSet: true,
    });
    expect(await first<Meter>('meter', { devAddr: 'MNEW00002' })).toMatchObject({
      gridId: gridA,
      moduleNo: 'MODFREE1',
      consumerCode: 'CNEW0001',
      pocNo: 'PNEW2',
      supplierName: null,
      hesPasswordSet: false,
    });
    expect(await first<Meter>('meter', { devAddr: 'MNEW00004' })).toMatchObject({
      pocNo: null,
      moduleNo: null,
      consumerCode: null,
    });
    const created = await first<Consumer>('consumer', { consumerCode: 'CNEW0001' });
    expect(created).toMatchObject({ consumerName: 'Amal Saleh', identityNumber: 'ID-1', gridId: gridA1 });
    expect(created.pocs?.map((p) => [p.pocNo, p.devAddr])).toEqual([
      ['PNEW1', 'MNEW00001'],
      ['PNEW2', 'MNEW00002'],
    ]);
    expect(await first<Module>('module', { moduleNo: 'MODNEW1' })).toMatchObject({
      simNo: '13800000001',
      devAddr: 'MNEW00001',
      gridId: gridA1,
    });
    expect(await first<Poc>('poc', { pocNo: 'PNEW1' })).toMatchObject({
      nature: 4,
      gridId: gridA1,
      consumerCode: 'CNEW0001',
      devAddr: 'MNEW00001',
      dcuNo: 'DCUA01',
      tariffId: tariffT01,
      syncStatus: 0,
    });
    // A synchronized POC that gets a meter no longer matches what the head-end holds.
    expect(await first<Poc>('poc', { pocNo: 'PFREE1' })).toMatchObject({
      consumerCode: 'CEXIST01',
      devAddr: 'MNEW00003',
      dcuNo: 'DCUA01',
      syncStatus: 2,
    });

    // The HES password is stored sealed: no clear text in the table, and the server's key opens it.
    const [stored] = await t.db.select({ hes: meter.hesPassword }).from(meter).where(eq(meter.devAddr, 'MNEW00001'));
    expect(stored?.hes).toBeTruthy();
    expect(stored?.hes).not.toContain('hes-secret-1');
    expect(new SecretBox(t.secretKey).open(stored?.hes as string)).toBe('hes-secret-1');
  }, 120_000);

  it('writes nothing when rows are bad, and names each bad cell with its line, column, code and cause', async () => {
    const before = await archiveCounts(t);
    const status = await importRows(
      t,
      'meter',
      [
        HEADERS,
        row({ devAddr: 'MOK000001', gridName: 'MIA' }),
        row({ devAddr: 'M12', gridName: 'MIA' }),
        row({ devAddr: 'MSAME0001', moduleNo: 'msame0001', gridName: 'MIA' }),
        row({ devAddr: 'MUSED0001', gridName: 'MIA' }),
        row({ devAddr: 'MOK000001', gridName: 'MIA' }),
        row({ devAddr: 'MOK000007', moduleNo: 'MODUSED1', gridName: 'MIA' }),
        row({ devAddr: 'MOK000008', pocPoint: 'PBUSY1', gridName: 'MIA' }),
        row({ devAddr: 'MOK000009', dcuNo: 'DCUNONE', gridName: 'MIA' }),
        row({ devAddr: 'MOK000010', gridName: 'Nowhere' }),
        row({ devAddr: 'MOK000011', consumerCode: 'CNEW0011', consumerName: 'No POC', gridName: 'MIA' }),
        row({ devAddr: 'MOK000012', consumerCode: 'CNEW0012', pocPoint: 'PNEW12', gridName: 'MIA' }),
        row({ devAddr: 'MOK000013', supplierName: 'Nobody', gridName: 'MIA' }),
        row({ devAddr: 'MOK000014', interfaceType: 'Bluetooth', gridName: 'MIA' }),
        row({ devAddr: 'MOK000015', pocPoint: 'PNEW15', pocNature: '9', gridName: 'MIA' }),
        row({ devAddr: 'MOK000016', moduleNo: 'MODNEW16', simNo: '13a', gridName: 'MIA' }),
        row({ devAddr: 'MOK000017', consumerCode: 'CEXIST01', pocPoint: 'POTHER1', gridName: 'MIA' }),
        row({ devAddr: 'MOK000018', meterTypeName: 'NOPE', gridName: 'MIA' }),
        row({ devAddr: 'MOK000019', simNo: '123', gridName: 'MIA' }),
        row({ devAddr: 'MOK000020', hesPassword: 'x'.repeat(65), gridName: 'MIA' }),
        row({ devAddr: 'MOK000021', moduleNo: 'MODNEW21', gridName: '' }),
        row({ devAddr: 'MOK000022', meterTypeName: 'DDS666', supplierName: 'Other Maker', gridName: 'MIA' }),
        row({ devAddr: 'MOK000023', tariffId: 'No such tariff', gridName: 'MIA' }),
      ],
      admin,
    );
    expect(status).toMatchObject({ state: 'failed', total: 22, imported: 0 });
    expect(status.errors).toEqual([
      {
        line: 3,
        column: 'devAddr',
        columnLetter: 'D',
        code: 'meterSnIncomplete',
        cause: 'Please enter the complete Meter SN: M12',
      },
      {
        line: 4,
        column: 'devAddr',
        columnLetter: 'D',
        code: 'meterSnSameAsModule',
        cause: 'Meter SN and module SN must differ: MSAME0001',
      },
      { line: 5, column: 'devAddr', columnLetter: 'D', code: 'existed', cause: 'existed: MUSED0001' },
      {
        line: 6,
        column: 'devAddr',
        columnLetter: 'D',
        code: 'importDuplicateInFile',
        cause: 'The same value appears twice in the file: MOK000001 (line 2)',
      },
      {
        line: 7,
        column: 'moduleNo',
        columnLetter: 'E',
        code: 'moduleInUse',
        cause: 'This module is used by a meter: MODUSED1',
      },
      {
        line: 8,
        column: 'pocPoint',
        columnLetter: 'K',
        code: 'pocHasMeter',
        cause: 'This POC already has a meter: PBUSY1',
      },
      { line: 9, column: 'dcuNo', columnLetter: 'M', code: 'dcuNotFound', cause: 'The DCU does not exist: DCUNONE' },
      {
        line: 10,
        column: 'gridName',
        columnLetter: 'H',
        code: 'gridNotFound',
        cause: 'The power grid does not exist: Nowhere',
      },
      { line: 11, column: 'pocPoint', columnLetter: 'K', code: 'mandatory', cause: 'This part is mandatory' },
      { line: 12, column: 'consumerName', columnLetter: 'B', code: 'mandatory', cause: 'This part is mandatory' },
      {
        line: 13,
        column: 'supplierName',
        columnLetter: 'I',
        code: 'supplierNotFound',
        cause: 'The supplier does not exist: Nobody',
      },
      { line: 14, column: 'interfaceType', columnLetter: 'O', code: 'invalidValue', cause: 'Invalid value: Bluetooth' },
      { line: 15, column: 'pocNature', columnLetter: 'L', code: 'invalidValue', cause: 'Invalid value: 9' },
      { line: 16, column: 'simNo', columnLetter: 'F', code: 'digitsOnly', cause: 'Only digits are allowed: 13a' },
      {
        line: 17,
        column: 'pocPoint',
        columnLetter: 'K',
        code: 'pocOtherConsumer',
        cause: 'This POC belongs to another consumer: POTHER1',
      },
      {
        line: 18,
        column: 'meterTypeName',
        columnLetter: 'P',
        code: 'meterTypeNotFound',
        cause: 'The meter type does not exist: NOPE',
      },
      { line: 19, column: 'moduleNo', columnLetter: 'E', code: 'mandatory', cause: 'This part is mandatory' },
      { line: 20, column: 'hesPassword', columnLetter: 'N', code: 'tooLong', cause: `Too long: ${'x'.repeat(65)}` },
      { line: 21, column: 'gridName', columnLetter: 'H', code: 'mandatory', cause: 'This part is mandatory' },
      {
        line: 22,
        column: 'supplierName',
        columnLetter: 'I',
        code: 'supplierNotOfMeterType',
        cause: "The supplier must be the meter type's supplier: Other Maker",
      },
      {
        line: 23,
        column: 'tariffId',
        columnLetter: 'J',
        code: 'tariffNotFound',
        cause: 'No tariff has this name or id: No such tariff',
      },
    ]);
    expect(await archiveCounts(t)).toEqual(before);
  }, 120_000);

  it('names a bad cell by the header the file gave its column, in either language, and by its letter', async () => {
    const before = await archiveCounts(t);
    const status = await importRows(
      t,
      'meter',
      [
        ['备注', '表号 *', 'Power grid', '用户编号', '用户名称'],
        ['not a column of the import', 'M12', 'MIA', '', ''],
        ['', 'MZHCOL003', 'Nowhere', '', ''],
        // A consumer reaches its meter through a POC, and the file has no POC column at all.
        ['', 'MZHCOL004', 'MIA', 'CZHCOL04', '李娜'],
      ],
      admin,
    );
    expect(status).toMatchObject({ state: 'failed', total: 3, imported: 0, errorCount: 3 });
    expect(status.errors).toEqual([
      {
        line: 2,
        column: '表号 *',
        columnLetter: 'B',
        code: 'meterSnIncomplete',
        cause: 'Please enter the complete Meter SN: M12',
      },
      {
        line: 3,
        column: 'Power grid',
        columnLetter: 'C',
        code: 'gridNotFound',
        cause: 'The power grid does not exist: Nowhere',
      },
      { line: 4, column: 'POC number', columnLetter: '', code: 'mandatory', cause: 'This part is mandatory' },
    ]);
    expect(await archiveCounts(t)).toEqual(before);
  }, 120_000);

  it("refuses what lies outside the caller's grid scope like what does not exist", async () => {
    const scoped = await loginGridUser(t, 'meter.importer', [gridA], [METER_RES.page, `${METER_RES.page}/import`]);
    const before = await archiveCounts(t);
    const status = await importRows(
      t,
      'meter',
      [
        HEADERS,
        row({ devAddr: 'MSC000002', gridName: 'MIB' }),
        row({ devAddr: 'MSC000003', gridName: 'NOWHERE' }),
        row({ devAddr: 'MSC000004', gridName: 'MIA', dcuNo: 'DCUB01' }),
        row({ devAddr: 'MSC000005', gridName: 'MIA', dcuNo: 'DCUZZ' }),
        // Consumer, module and POC numbers are unique in the whole archive: another grid's cannot be made again.
        row({ devAddr: 'MSC000006', gridName: 'MIA', consumerCode: 'CB0001', pocPoint: 'PSC6' }),
        row({ devAddr: 'MSC000007', gridName: 'MIA', pocPoint: 'PB1' }),
        row({ devAddr: 'MSC000008', gridName: 'MIA', moduleNo: 'MODB1' }),
        row({ devAddr: 'MSC000009', gridName: 'MIA1' }),
      ],
      scoped,
    );
    expect(status.errors.map((e) => [e.line, e.column, e.code])).toEqual([
      [2, 'gridName', 'gridNotFound'],
      [3, 'gridName', 'gridNotFound'],
      [4, 'dcuNo', 'dcuNotFound'],
      [5, 'dcuNo', 'dcuNotFound'],
      [6, 'consumerCode', 'existed'],
      [7, 'pocPoint', 'existed'],
      [8, 'moduleNo', 'existed'],
    ]);
    expect(await archiveCounts(t)).toEqual(before);

    const inScope = await importRows(
      t,
      'meter',
      [
        HEADERS,
        row({ devAddr: 'MSC000009', gridName: 'MIA1' }),
        // What the caller's scope holds is reused: a consumer, their free POC, a free module below the scope's node.
        row({
          devAddr: 'MSC000010',
          gridName: 'MIA',
          consumerCode: 'CEXIST02',
          pocPoint: 'POTHER1',
          moduleNo: 'MODSCOPE1',
        }),
      ],
      scoped,
    );
    expect(inScope).toMatchObject({ state: 'done', imported: 2 });
    expect(await archiveCounts(t)).toEqual({ ...before, meter: before.meter + 2 });
    expect(await first<Meter>('meter', { devAddr: 'MSC000010' })).toMatchObject({
      consumerCode: 'CEXIST02',
      pocNo: 'POTHER1',
      moduleNo: 'MODSCOPE1',
    });
  }, 120_000);

  it('reads Chinese headers and Chinese option labels', async () => {
    const status = await importRows(
      t,
      'meter',
      [
        ['用户编号', '用户名称', '表号', '所属电网', '计量点编号', '计量点性质', '接口类型', 'HES 密码'],
        ['CZH0001', '王芳', 'MZH000001', 'MIA', 'PZH1', '光伏', '红外光口', 'zh-secret'],
      ],
      admin,
    );
    expect(status).toMatchObject({ state: 'done', imported: 1 });
    expect(await first<Meter>('meter', { devAddr: 'MZH000001' })).toMatchObject({
      interfaceType: 'optical',
      consumerName: '王芳',
      pocNo: 'PZH1',
      hesPasswordSet: true,
    });
    expect(await first<Poc>('poc', { pocNo: 'PZH1' })).toMatchObject({ nature: 4 });
  }, 120_000);

  it('reuses a consumer the file made a chunk of rows earlier', async () => {
    const before = await archiveCounts(t);
    const rows: ExcelJS.CellValue[][] = [
      HEADERS,
      row({
        consumerCode: 'CSPAN001',
        consumerName: 'Spans chunks',
        devAddr: 'MSPAN0000',
        gridName: 'MIA',
        pocPoint: 'PSPAN0',
      }),
    ];
    // More rows than the import checks and writes at a time, so the last row lies in another chunk.
    for (let i = 1; i <= 1_000; i++) rows.push(row({ devAddr: `MSPAN${String(i).padStart(4, '0')}`, gridName: 'MIA' }));
    rows.push(row({ consumerCode: 'cspan001', devAddr: 'MSPANLAST', gridName: 'MIA', pocPoint: 'PSPAN1' }));
    const status = await importRows(t, 'meter', rows, admin);
    expect(status).toMatchObject({ state: 'done', total: 1_002, imported: 1_002 });
    expect(await archiveCounts(t)).toEqual({
      ...before,
      consumer: before.consumer + 1,
      meter: before.meter + 1_002,
      poc: before.poc + 2,
    });
    const made = await first<Consumer>('consumer', { consumerCode: 'CSPAN001' });
    expect(made.pocs?.map((p) => [p.pocNo, p.devAddr])).toEqual([
      ['PSPAN0', 'MSPAN0000'],
      ['PSPAN1', 'MSPANLAST'],
    ]);
  }, 120_000);

  it('leaves every archive table unchanged when one row of 10,000 is bad', async () => {
    const before = await archiveCounts(t);
    const rows: ExcelJS.CellValue[][] = [HEADERS];
    for (let i = 0; i < 10_000; i++) {
      const n = String(i).padStart(5, '0');
      rows.push(
        row({
          consumerCode: `CATOM${n}`,
          consumerName: `Consumer ${n}`,
          devAddr: `MATOM${n}`,
          moduleNo: `MODATOM${n}`,
          gridName: 'MIA',
          pocPoint: `PATOM${n}`,
          hesPassword: `pw${n}`,
        }),
      );
    }
    rows[5_001] = row({
      consumerCode: 'CATOMBAD',
      consumerName: 'Bad',
      devAddr: 'M1',
      gridName: 'MIA',
      pocPoint: 'PBAD',
    });
    const status = await importRows(t, 'meter', rows, admin);
    expect(status).toMatchObject({ state: 'failed', total: 10_000, imported: 0, errorCount: 1 });
    expect(status.errors).toEqual([
      {
        line: 5_002,
        column: 'devAddr',
        columnLetter: 'D',
        code: 'meterSnIncomplete',
        cause: 'Please enter the complete Meter SN: M1',
      },
    ]);
    expect(await archiveCounts(t)).toEqual(before);
  }, 300_000);

  it('rolls back the consumers and modules already written when a meter fails at the write', async () => {
    const [user] = await t.db.select({ id: sysUser.id }).from(sysUser).where(eq(sysUser.username, 'admin'));
    const rows = [
      HEADERS,
      ...[1, 2, 3].map((n) =>
        row({
          consumerCode: `CRACE000${n}`,
          consumerName: 'Race',
          devAddr: `MRACE000${n}`,
          moduleNo: `MODRACE${n}`,
          gridName: 'MIA',
          pocPoint: `PRACE${n}`,
        }),
      ),
    ];
    const { importId } = await startImport(t.database, async () => 'no-job', {
      entity: 'meter',
      file: await workbook(rows),
      fileName: 'race.xlsx',
      userId: user!.id,
      username: 'admin',
      language: 1,
    });
    const real = meterImport(new SecretBox(t.secretKey));
    // Another user saves one of the file's meters between the check and the write.
    let raced = false;
    const racing: typeof real = {
      ...real,
      pass: (ctx) => {
        const check = real.pass(ctx);
        return async (rows) => {
          const checked = await check(rows);
          if (!raced) {
            raced = true;
            await insertMeter('MRACE0003', gridA);
          }
          return checked;
        };
      },
    };
    const before = await archiveCounts(t);
    const progress = { progress: async () => {} };
    await expect(runImport(t.database, new Map([['meter', racing]]), importId, progress)).rejects.toThrow();
    expect(await archiveCounts(t)).toEqual({ ...before, meter: before.meter + 1 });

    // The job's retry checks again, and now names the row.
    await runImport(t.database, new Map([['meter', real]]), importId, progress);
    const status = await t.call<{ state: string; errors: { line: number; code: string }[] }>(
      '/meter/importstatus',
      { importId },
      admin,
    );
    expect(status.body.data.state).toBe('failed');
    expect(status.body.data.errors.map((e) => [e.line, e.code])).toEqual([[4, 'existed']]);
    expect(await archiveCounts(t)).toEqual({ ...before, meter: before.meter + 1 });
  }, 120_000);
});
