import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { formatDateKind, Workbook } from './workbook';

async function firstRows(build: (book: ExcelJS.Workbook, sheet: ExcelJS.Worksheet) => void): Promise<string[][]> {
  const book = new ExcelJS.Workbook();
  build(book, book.addWorksheet('Sheet1'));
  const workbook = await Workbook.open(Buffer.from(await book.xlsx.writeBuffer()));
  const rows: string[][] = [];
  for await (const row of workbook.rows()) rows.push(row.cells);
  return rows;
}

const at = (iso: string) => new Date(`${iso}Z`);

describe("the import's workbook reader", () => {
  it('reads a date or time cell as the user typed it, not as its serial', async () => {
    const rows = await firstRows((_, sheet) => {
      const row = sheet.addRow([
        at('1899-12-30T22:00:00'),
        at('1899-12-30T02:30:15'),
        at('2024-01-01T00:00:00'),
        at('2024-03-05T08:30:00'),
        at('2024-03-05T00:00:00'),
        45292,
        0.5,
      ]);
      row.getCell(1).numFmt = 'hh:mm';
      row.getCell(2).numFmt = '[h]:mm:ss';
      row.getCell(3).numFmt = 'yyyy-mm-dd';
      row.getCell(4).numFmt = 'yyyy-mm-dd hh:mm';
      // exceljs's own date format (built-in 14) is what a bare Date cell gets.
      row.getCell(6).numFmt = '#,##0';
      row.getCell(7).numFmt = '0.00%';
    });
    expect(rows).toEqual([['22:00', '02:30:15', '2024-01-01', '2024-03-05 08:30', '2024-03-05', '45292', '0.5']]);
  });

  it('counts from 1904 when the workbook says so', async () => {
    const rows = await firstRows((book, sheet) => {
      book.properties.date1904 = true;
      sheet.addRow([at('2024-01-01T00:00:00')]).getCell(1).numFmt = 'yyyy-mm-dd';
    });
    expect(rows).toEqual([['2024-01-01']]);
  });

  it('tells a date format from a number format by what it shows, quoted text and colours aside', () => {
    expect(formatDateKind('yyyy"年"m"月"d"日"')).toBe('date');
    expect(formatDateKind('h:mm AM/PM')).toBe('time');
    expect(formatDateKind('[$-804]yyyy/m/d h:mm')).toBe('dateTime');
    expect(formatDateKind('[Red]#,##0.00')).toBe(null);
    expect(formatDateKind('0 "days"')).toBe(null);
    expect(formatDateKind('#,##0 "hours"')).toBe(null);
  });
});
