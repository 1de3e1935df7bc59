import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import {
  type BatchDeleteResult,
  MAX_EXPORT_COLUMNS,
  MAX_PDF_ROWS,
  type Page,
  type Supplier,
} from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../db/ids';
import { meterType, supplier as supplierTable, sysUser } from '../../db/schema';
import { PDF_FONT } from '../../http/pdf';
import { createTestApp, type TestApp } from '../../test/harness';

/** The archive kit's calls, through the supplier: the simplest archive entity (no grid scope). */
describe('supplier (archive kit)', () => {
  let t: TestApp;
  let admin: string;
  const supplier = (over: Partial<Supplier> = {}) => ({
    supplierCode: 'HX01',
    supplierName: 'Hexing',
    contact: 'Li Wei',
    phone: '+86 571 1234',
    address: 'Hangzhou',
    remark: '',
    ...over,
  });

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
  });
  afterAll(() => t.close());

  it('adds, lists, details, edits and refuses a taken code or name in any case', async () => {
    const saved = await t.call<{ id: string }>('/supplier/save', supplier(), admin);
    expect(saved.status).toBe(200);
    const id = saved.body.data.id;
    const again = await t.call('/supplier/save', supplier({ supplierName: 'Other', supplierCode: 'hx01' }), admin);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      msg: 'existed',
      data: { issues: [{ field: 'supplierCode', key: 'existed', message: 'Supplier code existed' }] },
    });
    const sameName = await t.call('/supplier/save', supplier({ supplierCode: 'KF2', supplierName: 'HEXING' }), admin);
    expect(sameName.body).toMatchObject({ data: { issues: [{ field: 'supplierName' }] } });

    expect((await t.call('/supplier/check', { field: 'supplierCode', value: 'HX01' }, admin)).body.data).toEqual({
      existed: true,
    });
    expect((await t.call('/supplier/check', { field: 'supplierCode', value: 'HX01', id }, admin)).body.data).toEqual({
      existed: false,
    });

    expect((await t.call('/supplier/update', { ...supplier({ address: 'Shenzhen' }), id }, admin)).status).toBe(200);
    const detail = await t.call<Supplier>('/supplier/detail', { id }, admin);
    expect(detail.body.data).toMatchObject({ supplierCode: 'HX01', address: 'Shenzhen' });
    const list = await t.call<Page<Supplier>>('/supplier/list', { supplierName: 'hexi' }, admin);
    expect(list.body.data.list.map((s) => s.supplierCode)).toEqual(['HX01']);
    expect((await t.call('/supplier/detail', { id: newId() }, admin)).status).toBe(404);
  });

  it('refuses bad input with the field named, never a 5xx', async () => {
    const bad = await t.call('/supplier/save', supplier({ supplierCode: 'HX 02!', supplierName: '  ' }), admin);
    expect(bad.status).toBe(400);
    const keys = (bad.body as { data: { issues: { field: string; key: string }[] } }).data.issues;
    expect(keys).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'supplierCode', key: 'codeFormat' }),
        expect.objectContaining({ field: 'supplierName', key: 'mandatory' }),
      ]),
    );
    // A blank code is only missing: letters and digits have nothing to say about it.
    const blank = await t.call('/supplier/save', supplier({ supplierCode: '   ' }), admin);
    expect((blank.body as { data: { issues: unknown[] } }).data.issues).toEqual([
      { field: 'supplierCode', key: 'mandatory', message: 'This part is mandatory' },
    ]);
    expect((await t.call('/supplier/list', { sortField: 'remark' }, admin)).status).toBe(400);
    expect((await t.call('/supplier/check', { field: 'remark', value: 'x' }, admin)).status).toBe(400);
  });

  it('deletes a batch, keeping a supplier still in use and saying why', async () => {
    const used = (
      await t.call<{ id: string }>('/supplier/save', supplier({ supplierCode: 'U1', supplierName: 'Used' }), admin)
    ).body.data.id;
    const free = (
      await t.call<{ id: string }>('/supplier/save', supplier({ supplierCode: 'F1', supplierName: 'Free' }), admin)
    ).body.data.id;
    await t.db
      .insert(meterType)
      .values({ id: newId(), modelName: 'DDS666', supplierId: used, wiring: '1P2W', side: 'secondary' });
    const ghost = newId();
    const res = await t.call<BatchDeleteResult>('/supplier/delete', { ids: [used, free, ghost] }, admin);
    expect(res.body.data).toEqual({
      deleted: 1,
      failures: [
        { id: used, name: 'U1', key: 'supplierInUse' },
        { id: ghost, name: '', key: 'notFound' },
      ],
    });
    expect((await t.call('/supplier/detail', { id: free }, admin)).status).toBe(404);
    expect((await t.call('/supplier/detail', { id: used }, admin)).status).toBe(200);
  });

  const exportFile = (cookie: string, payload: object) =>
    t.app.http.inject({ method: 'POST', url: '/apis/supplier/export', payload, headers: { cookie } });

  it('exports the filtered rows with chosen columns; a cell starting with =, +, - or @ stays text', async () => {
    const formulas = ['=HYPERLINK("x")', '+SUM(A1)', '-2+3', '@cmd'];
    for (const [i, supplierName] of formulas.entries()) {
      await t.call('/supplier/save', supplier({ supplierCode: `EQ${i}`, supplierName }), admin);
    }
    const res = await exportFile(admin, { supplierCode: 'EQ', columns: ['supplierName', 'supplierCode'] });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('spreadsheetml');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0]!;
    expect(sheet.getRow(1).values).toEqual([undefined, 'Supplier name', 'Supplier code']);
    expect(sheet.rowCount).toBe(1 + formulas.length);
    for (const [i, text] of formulas.entries()) {
      const cell = sheet.getRow(2 + i).getCell(1);
      expect(cell.type).toBe(ExcelJS.ValueType.String);
      expect(cell.value).toBe(text);
    }
  });

  it('refuses an unknown export format or too many columns with the field named', async () => {
    const format = await t.call('/supplier/export', { format: 'csv' }, admin);
    expect(format.status).toBe(400);
    expect(format.body).toMatchObject({ data: { issues: [{ field: 'format', key: 'invalidValue' }] } });
    const columns = await t.call('/supplier/export', { columns: Array(MAX_EXPORT_COLUMNS + 1).fill('phone') }, admin);
    expect(columns.status).toBe(400);
    expect(columns.body).toMatchObject({ data: { issues: [{ field: 'columns', key: 'tooLong' }] } });
  });

  describe('PDF export', () => {
    let zhAdmin: string;
    let pdf: Buffer;
    const name = '华立科技';

    beforeAll(async () => {
      await t.call('/supplier/save', supplier({ supplierCode: 'PDF1', supplierName: name, address: '杭州市' }), admin);
      await t.db.update(sysUser).set({ language: 2 }).where(eq(sysUser.username, 'admin'));
      zhAdmin = await t.loginAdmin();
      const res = await exportFile(zhAdmin, { supplierCode: 'PDF1', format: 'pdf' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/pdf');
      expect(String(res.headers['content-disposition'])).toContain(encodeURIComponent('供应商'));
      pdf = res.rawPayload;
    });
    afterAll(() => t.db.update(sysUser).set({ language: 1 }).where(eq(sysUser.username, 'admin')));

    it('is a PDF with the CJK font embedded, and its text maps back to the Chinese characters', () => {
      expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      const raw = pdf.toString('latin1');
      // A subset is named `ABCDEF+<PostScript name>`.
      expect(raw).toMatch(new RegExp(`/BaseFont /[A-Z]{6}\\+${PDF_FONT}`));
      const cmaps = inflatedStreams(pdf).filter((stream) => stream.includes('begincmap'));
      const mapped = cmaps.join('\n').toLowerCase();
      for (const char of `${name}杭州市供应商编码`) {
        expect(mapped).toContain(`<${char.codePointAt(0)?.toString(16).padStart(4, '0')}>`);
      }
    });

    it.runIf(hasPdftotext)('reads back as the title, the column titles and the Chinese values', async () => {
      const text = pdfText(pdf);
      expect(text).toContain('供应商');
      expect(text).toContain('供应商编码');
      expect(text).toContain(name);
      expect(text).toContain('杭州市');
    });
  });

  it.runIf(hasPdftotext)(`writes at most ${MAX_PDF_ROWS} rows and says so`, async () => {
    const rows = Array.from({ length: MAX_PDF_ROWS + 1 }, (_, i) => ({
      id: newId(),
      supplierCode: `CAP${String(i).padStart(5, '0')}`,
      supplierName: `Capped ${i}`,
    }));
    await t.db.insert(supplierTable).values(rows);
    const res = await exportFile(admin, { supplierCode: 'CAP', format: 'pdf', columns: ['supplierCode'] });
    expect(res.statusCode).toBe(200);
    const text = pdfText(res.rawPayload);
    expect(text).toContain(`Only the first ${MAX_PDF_ROWS.toLocaleString('en')} rows are listed`);
    expect(text).toContain(`CAP${String(MAX_PDF_ROWS - 1).padStart(5, '0')}`);
    expect(text).not.toContain(`CAP${String(MAX_PDF_ROWS).padStart(5, '0')}`);
  });
});

/** The content of every Flate-compressed stream of a PDF (its pages, fonts and CMaps). */
function inflatedStreams(pdf: Buffer): string[] {
  const raw = pdf.toString('latin1');
  const streams: string[] = [];
  for (const match of raw.matchAll(/>>\s*stream\r?\n/g)) {
    const start = match.index + match[0].length;
    const end = raw.indexOf('endstream', start);
    if (end < 0) break;
    try {
      streams.push(inflateSync(pdf.subarray(start, end)).toString('latin1'));
    } catch {
      // An uncompressed stream holds no CMap of pdfkit's.
    }
  }
  return streams;
}

const hasPdftotext = spawnSync('pdftotext', ['-v']).error === undefined;

/** The text poppler reads from a PDF, as a viewer's copy and search would. */
function pdfText(pdf: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'pdf-'));
  const file = join(dir, 'export.pdf');
  writeFileSync(file, pdf);
  try {
    return execFileSync('pdftotext', ['-enc', 'UTF-8', file, '-']).toString('utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
