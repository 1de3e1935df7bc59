import { MAX_IMPORT_ROWS } from '@meterdesk/contracts';
import type ExcelJS from 'exceljs';
import { loadExcel } from '../../../http/export';
import { translator } from '../../../i18n/labels';
import { columnChoices, columnTitle, EXAMPLE_MARK, type ImportColumn } from './import-kit';
import { columnLetter } from './workbook';

const COLUMN_WIDTH = 21;
const EXAMPLE_FONT: Partial<ExcelJS.Font> = { italic: true, color: { argb: 'FF808080' } };

/**
 * An import's template in the user's language, all from its columns: the headers (` *` on a
 * required one, what a reference names its record by), an example row the import skips (its mark in
 * the cell after the last column), and for each column with allowed values a dropdown over its
 * cells and its values with their meaning on a second sheet (the import reads the first only).
 */
export async function importTemplate(
  columns: readonly ImportColumn[],
  sheetName: string,
  language: number,
): Promise<Buffer> {
  const t = translator(language);
  const ExcelJS = await loadExcel();
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet(sheetName);
  const allowed = workbook.addWorksheet(t('crud.importAllowed.sheet'));
  sheet.columns = columns.map((c) => ({
    header: `${columnTitle(t, c)}${c.required ? ' *' : ''}`,
    key: c.key,
    width: COLUMN_WIDTH,
  }));
  sheet.getRow(1).font = { bold: true };
  allowed.columns = [
    { header: t('crud.importAllowed.column'), width: COLUMN_WIDTH },
    { header: t('crud.importAllowed.value'), width: COLUMN_WIDTH / 2 },
    { header: t('crud.importAllowed.meaning'), width: COLUMN_WIDTH * 1.5 },
  ];
  allowed.getRow(1).font = { bold: true };

  const example = sheet.getRow(2);
  columns.forEach((column, index) => {
    const choices = columnChoices(column);
    const letter = columnLetter(index + 1);
    example.getCell(index + 1).value = column.example ?? (choices ? t(choices[0]!.label) : '');
    if (!choices) return;
    const first = allowed.rowCount + 1;
    for (const choice of choices) allowed.addRow([columnTitle(t, column), String(choice.value), t(choice.label)]);
    // The dropdown offers the meanings, which the import reads as well as the values; a typed value only warns.
    (
      sheet as unknown as { dataValidations: { add(range: string, v: ExcelJS.DataValidation): void } }
    ).dataValidations.add(`${letter}2:${letter}${MAX_IMPORT_ROWS + 1}`, {
      type: 'list',
      allowBlank: true,
      formulae: [`'${allowed.name}'!$C$${first}:$C$${allowed.rowCount}`],
      showErrorMessage: true,
      errorStyle: 'warning',
    });
  });
  example.getCell(columns.length + 1).value = t(EXAMPLE_MARK);
  example.font = EXAMPLE_FONT;
  return Buffer.from(await workbook.xlsx.writeBuffer());
}
