import type { Page, SystemLog } from '@meterdesk/contracts';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/harness';

const DAY = 86_400_000;
const range = (days = 1) => ({
  startTime: new Date(Date.now() - days * DAY).toISOString(),
  endTime: new Date(Date.now() + 60_000).toISOString(),
});

describe('system log', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await createTestApp();
    await t.call('/sysuser/login', { username: 'admin', password: 'wrong-one', code: 'x', codeFill: 'x' });
    admin = await t.loginAdmin();
    await t.call('/sysresource/savesysresource', { resourceName: '', resourceType: 9 }, admin);
    await t.call('/systemlog/savevisitlog', { pageUri: '/sysMGT/sysJournal', pageName: 'System Log' }, admin);
  });
  afterAll(() => t.close());

  const list = (body: Record<string, unknown>) =>
    t.call<Page<SystemLog>>('/systemlog/listsystemlog', { ...range(), ...body }, admin);

  it('lists visit, login and operation logs with their filters, newest first', async () => {
    const all = (await list({ pageSize: 100 })).body.data;
    expect(new Set(all.list.map((l) => l.logType))).toEqual(new Set(['login', 'operation', 'visit']));
    const times = all.list.map((l) => l.time);
    expect(times).toEqual([...times].sort().reverse());

    const failedLogins = (await list({ logType: 'login', content: 'wrongCredentials' })).body.data.list;
    expect(failedLogins).toHaveLength(1);
    expect(failedLogins[0]).toMatchObject({ username: 'admin', result: 400, logLevel: 'warn' });
    const visits = (await list({ logType: 'visit' })).body.data.list;
    expect(visits[0]).toMatchObject({
      operatingType: 'visit',
      requestUrl: '/sysMGT/sysJournal',
      content: 'System Log /sysMGT/sysJournal',
    });
    expect((await list({ operatingType: 'add', logLevel: 'warn' })).body.data.total).toBe(1);
    expect((await list({ username: 'nobody' })).body.data.total).toBe(0);
  });

  it('limits the time range and refuses an inverted one', async () => {
    expect((await list(range(32))).body.data).toMatchObject({
      issues: [{ field: 'endTime', key: 'timeRangeTooLong' }],
    });
    const inverted = { startTime: new Date().toISOString(), endTime: new Date(Date.now() - DAY).toISOString() };
    expect((await list(inverted)).body.data).toMatchObject({
      issues: [{ field: 'startTime', key: 'timeRangeInvalid' }],
    });
    expect((await t.call('/systemlog/listsystemlog', { pageSize: 10 }, admin)).body.data).toMatchObject({
      issues: expect.arrayContaining([expect.objectContaining({ field: 'startTime', key: 'invalidValue' })]),
    });
  });

  it('exports the filtered logs as an Excel workbook with 150 px columns', async () => {
    const res = await t.app.http.inject({
      method: 'POST',
      url: '/apis/systemlog/exportsystemlog',
      payload: { ...range(), logType: 'login' },
      headers: { cookie: admin },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('spreadsheetml');
    expect(res.headers['content-disposition']).toMatch(/attachment; filename="system-log-.*\.xlsx"/);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0]!;
    expect(sheet.getRow(1).getCell(1).value).toBe('time');
    expect(sheet.rowCount).toBe(3);
    expect(sheet.getColumn(1).width).toBe(21);
    const exportLogged = (await list({ operatingType: 'other' })).body.data.list;
    expect(exportLogged.some((l) => l.requestUrl === '/apis/systemlog/exportsystemlog')).toBe(true);
  });
});
