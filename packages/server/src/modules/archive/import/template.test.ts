import type { Page, Poc } from '@meterdesk/contracts';
import type ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addGridNode } from '../../../test/grid';
import { createTestApp, type TestApp } from '../../../test/harness';
import { downloadTemplate, importFile } from './import-testing';

/** A sheet's row as text, column A first. */
const texts = (row: ExcelJS.Row) => (row.values as ExcelJS.CellValue[]).slice(1).map((v) => String(v ?? ''));

describe('import templates', () => {
  let t: TestApp;
  let admin: string;

  beforeAll(async () => {
    t = await createTestApp({}, { jobs: true });
    admin = await t.loginAdmin();
    await addGridNode(t, 'TPLA');
  });
  afterAll(() => t.close());

  it('imports the row filled below the example and skips the example row', async () => {
    const book = await downloadTemplate(t, 'poc', admin);
    const sheet = book.worksheets[0]!;
    const headers = texts(sheet.getRow(1));
    const example = texts(sheet.getRow(2));
    expect(example[headers.length]).toBe('Example row: it is not imported');
    const cells: Record<string, string> = {
      'POC point *': 'TPLP1',
      'POC nature *': 'Solar',
      'Power grid (name or code) *': 'TPLA',
    };
    sheet.getRow(3).values = headers.map((h) => cells[h] ?? '');

    const status = await importFile(t, 'poc', Buffer.from(await book.xlsx.writeBuffer()), admin);
    expect(status).toMatchObject({ state: 'done', total: 1, imported: 1, errorCount: 0, errors: [] });
    const pocs = (pocNo: string) => t.call<Page<Poc>>('/poc/list', { pocNo }, admin);
    expect((await pocs('TPLP1')).body.data.list.map((p) => [p.pocNo, p.nature])).toEqual([['TPLP1', 4]]);
    expect((await pocs(example[0]!)).body.data.total).toBe(0);
  });

  it("lists an enumerated column's values with their meaning and offers them in a dropdown over its cells", async () => {
    const book = await downloadTemplate(t, 'poc', admin);
    const [sheet, allowed] = book.worksheets as [ExcelJS.Worksheet, ExcelJS.Worksheet];
    expect(allowed.name).toBe('Allowed values');
    const natures = allowed.getSheetValues().flatMap((row) => {
      const cells = (row as ExcelJS.CellValue[] | undefined)?.slice(1).map(String) ?? [];
      return cells[0] === 'POC nature' ? [cells.slice(1)] : [];
    });
    expect(natures).toEqual([
      ['1', 'Consumer'],
      ['2', 'Centralized assessment point'],
      ['3', 'Primary table'],
      ['4', 'Solar'],
      ['5', 'Air conditioner'],
      ['6', 'Other'],
    ]);
    const column = texts(sheet.getRow(1)).indexOf('POC nature *') + 1;
    const validation = (sheet as unknown as { dataValidations: { find(a: string): ExcelJS.DataValidation } })
      .dataValidations;
    const letter = sheet.getColumn(column).letter;
    const first = allowed.getColumn(1).values.indexOf('POC nature');
    for (const line of [3, 200_001]) {
      expect(validation.find(`${letter}${line}`)).toMatchObject({
        type: 'list',
        formulae: [`'Allowed values'!$C$${first}:$C$${first + 5}`],
      });
    }
  });

  it('heads a reference column with what the import finds its record by', async () => {
    const headers = texts((await downloadTemplate(t, 'meter', admin)).worksheets[0]!.getRow(1));
    expect(headers).toEqual(
      expect.arrayContaining(['Power grid (name or code) *', 'Supplier (name)', 'Meter type (model name)']),
    );
  });
});
