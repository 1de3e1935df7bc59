import { CONSUMER_RES, type Consumer, type Page } from '@meterdesk/contracts';
import type ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../db/ids';
import { powerGrid } from '../../db/schema';
import { addGridNode, loginGridUser } from '../../test/grid';
import { createTestApp, type TestApp } from '../../test/harness';
import { archiveCounts, downloadTemplate, importRows } from './import/import-testing';

describe('consumer import', () => {
  let t: TestApp;
  let admin: string;
  let gridA: string;
  let feederA: string;

  const consumers = async (consumerCode: string) =>
    (await t.call<Page<Consumer>>('/consumer/list', { consumerCode, pageSize: 100 }, admin)).body.data.list;

  beforeAll(async () => {
    t = await createTestApp({}, { jobs: true });
    admin = await t.loginAdmin();
    gridA = await addGridNode(t, 'CIA');
    const gridB = await addGridNode(t, 'CIB');
    // Two feeders named alike under different nodes: the name alone names neither.
    const feeder = async (gridCode: string, parentId: string) => {
      const id = newId();
      await t.db.insert(powerGrid).values({ id, gridCode, gridName: 'Feeder 1', parentId });
      return id;
    };
    feederA = await feeder('CIAF1', gridA);
    await feeder('CIBF1', gridB);
  });
  afterAll(() => t.close());

  it('imports the template it offers, by grid name or code, converting option labels, numbers and switches', async () => {
    const book = await downloadTemplate(t, 'consumer', admin);
    const headers = (book.worksheets[0]!.getRow(1).values as string[]).slice(1);
    expect(headers.slice(0, 3)).toEqual(['Consumer ID *', 'Consumer name *', 'Power grid (name or code) *']);
    const cells = (values: Record<string, unknown>) =>
      headers.map((h) => values[h.replace(' *', '')] ?? '') as ExcelJS.CellValue[];

    const status = await importRows(
      t,
      'consumer',
      [
        headers,
        cells({
          'Consumer ID': 'CI-0001',
          'Consumer name': 'Noura Ali',
          'Power grid (name or code)': 'CIAF1',
          'Identity number': 'X1',
          Address: '12 King Road',
          Longitude: 46.61,
          Latitude: '24.62',
          'Consumer type': 'Commercial',
          'Payment mode': 'prepay',
          'Life support / medical': 'yes',
          Label: 'VIP',
          Gender: 'Female',
          'E-mail': 'noura@example.com',
          Remark: 'imported',
        }),
        cells({ 'Consumer ID': 'CI-0002', 'Consumer name': 'Omar', 'Power grid (name or code)': 'Grid CIA' }),
      ],
      admin,
    );
    expect(status).toMatchObject({ state: 'done', total: 2, imported: 2, errorCount: 0 });
    const [noura, omar] = await consumers('CI-000');
    expect(noura).toMatchObject({
      consumerCode: 'CI-0001',
      consumerName: 'Noura Ali',
      gridId: feederA,
      identityNumber: 'X1',
      address: '12 King Road',
      longitude: 46.61,
      latitude: 24.62,
      consumerType: 'commercial',
      paymentMode: 'prepay',
      protected: true,
      label: 'VIP',
      gender: 'female',
      email: 'noura@example.com',
      remark: 'imported',
    });
    expect(omar).toMatchObject({
      gridId: gridA,
      consumerType: 'residential',
      paymentMode: 'postpay',
      protected: false,
    });
  });

  it('writes nothing when rows are bad, and names each bad cell with its line, column, code and cause', async () => {
    const before = await archiveCounts(t);
    const status = await importRows(
      t,
      'consumer',
      [
        ['consumerCode', 'consumerName', 'gridName', 'latitude', 'consumerType', 'email'],
        ['CI-0101', 'Fine', 'CIA', '', '', ''],
        ['AB', 'Short code', 'CIA', '', '', ''],
        ['CI-0103', 'Far north', 'CIA', '95', '', ''],
        ['CI-0104', 'Which feeder', 'Feeder 1', '', '', ''],
        ['CI-0105', 'No such grid', 'Atlantis', '', '', ''],
        ['CI-0001', 'Taken', 'CIA', '', '', ''],
        ['CI-0101', 'Twice', 'CIA', '', '', ''],
        ['CI-0108', 'Odd type', 'CIA', '', 'alien', 'not-mail'],
        ['CI-0109', '', 'CIA', '', '', ''],
      ],
      admin,
    );
    expect(status).toMatchObject({ state: 'failed', total: 9, imported: 0 });
    expect(status.errors).toEqual([
      {
        line: 3,
        column: 'consumerCode',
        columnLetter: 'A',
        code: 'consumerIdIncomplete',
        cause: 'Please enter the complete Consumer ID: AB',
      },
      {
        line: 4,
        column: 'latitude',
        columnLetter: 'D',
        code: 'invalidLatitude',
        cause: 'Latitude must be between -90 and 90: 95',
      },
      {
        line: 5,
        column: 'gridName',
        columnLetter: 'C',
        code: 'importGridAmbiguous',
        cause: 'More than one power grid node has this name: enter its code: Feeder 1',
      },
      {
        line: 6,
        column: 'gridName',
        columnLetter: 'C',
        code: 'gridNotFound',
        cause: 'The power grid does not exist: Atlantis',
      },
      { line: 7, column: 'consumerCode', columnLetter: 'A', code: 'existed', cause: 'existed: CI-0001' },
      {
        line: 8,
        column: 'consumerCode',
        columnLetter: 'A',
        code: 'importDuplicateInFile',
        cause: 'The same value appears twice in the file: CI-0101 (line 2)',
      },
      { line: 9, column: 'consumerType', columnLetter: 'E', code: 'invalidValue', cause: 'Invalid value: alien' },
      {
        line: 9,
        column: 'email',
        columnLetter: 'F',
        code: 'emailFormat',
        cause: 'Please enter a valid e-mail address: not-mail',
      },
      { line: 10, column: 'consumerName', columnLetter: 'B', code: 'mandatory', cause: 'This part is mandatory' },
    ]);
    expect(await archiveCounts(t)).toEqual(before);
  });

  it("refuses a grid node outside the caller's scope like one that does not exist", async () => {
    const scoped = await loginGridUser(t, 'consumer.importer', [feederA], [CONSUMER_RES.page, CONSUMER_RES.import!]);
    const before = await archiveCounts(t);
    const refused = await importRows(
      t,
      'consumer',
      [
        ['consumerCode', 'consumerName', 'gridName'],
        ['CI-0201', 'Above my node', 'CIA'],
        ['CI-0202', 'Nowhere', 'Atlantis'],
        ['CI-0203', 'The other feeder', 'CIBF1'],
        // Of the two feeders called so, the caller reaches one: the name is no longer ambiguous.
        ['CI-0204', 'My feeder', 'Feeder 1'],
      ],
      scoped,
    );
    expect(refused.errors.map((e) => [e.line, e.column, e.code])).toEqual([
      [2, 'gridName', 'gridNotFound'],
      [3, 'gridName', 'gridNotFound'],
      [4, 'gridName', 'gridNotFound'],
    ]);
    expect(await archiveCounts(t)).toEqual(before);
    const accepted = await importRows(
      t,
      'consumer',
      [
        ['consumerCode', 'consumerName', 'gridName'],
        ['CI-0204', 'My feeder', 'Feeder 1'],
      ],
      scoped,
    );
    expect(accepted).toMatchObject({ state: 'done', imported: 1 });
    expect((await consumers('CI-0204'))[0]?.gridId).toBe(feederA);
  });

  it('reads Chinese headers and Chinese option labels', async () => {
    const status = await importRows(
      t,
      'consumer',
      [
        ['用户编号', '用户名称', '所属电网', '用户类型', '性别', '生命保障 / 医疗'],
        ['CI-0301', '李娜', 'CIA', '工业', '女', '是'],
      ],
      admin,
    );
    expect(status).toMatchObject({ state: 'done', imported: 1 });
    expect((await consumers('CI-0301'))[0]).toMatchObject({
      consumerName: '李娜',
      consumerType: 'industrial',
      gender: 'female',
      protected: true,
    });
  });
});
