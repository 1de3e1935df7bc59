import { deviceTopic, type Page, RES, type SystemLog } from '@meterdesk/contracts';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeLog } from '../../audit/audit.repository';
import { newId } from '../../db/ids';
import { sysLog, sysOrg } from '../../db/schema';
import { ROOT_ORG_ID } from '../../db/seeded-ids';
import { dcuAt, gridNode, meterAt, userOfGrid } from '../../test/archive-fixtures';
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

    // The content filter finds what the screen shows, in either language, not the stored form.
    const failedLogins = (await list({ logType: 'login', content: 'wrong username' })).body.data.list;
    expect(failedLogins).toHaveLength(1);
    expect((await list({ logType: 'login', content: '用户名或密码错误' })).body.data.total).toBe(1);
    expect((await list({ logType: 'login', content: 'wrongCredentials' })).body.data.total).toBe(0);
    expect(failedLogins[0]).toMatchObject({ username: 'admin', result: 400, logLevel: 'warn' });
    const visits = (await list({ logType: 'visit' })).body.data.list;
    expect(visits[0]).toMatchObject({
      operatingType: 'visit',
      requestUrl: '/sysMGT/sysJournal',
      content: 'System › System Log /sysMGT/sysJournal',
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
    expect(res.headers['content-disposition']).toMatch(/attachment; filename="System log-.*\.xlsx"/);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0]!;
    // Titles and values as the screen shows them, not field keys and stored codes.
    expect(sheet.getRow(1).getCell(1).value).toBe('Time');
    expect(sheet.getRow(2).getCell(2).value).toBe('Login');
    expect(String(sheet.getRow(2).getCell(1).value)).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(sheet.rowCount).toBe(3);
    expect(sheet.getColumn(1).width).toBe(21);
    const exportLogged = (await list({ operatingType: 'other' })).body.data.list;
    expect(exportLogged.some((l) => l.requestUrl === '/apis/systemlog/exportsystemlog')).toBe(true);
  });

  it('exports in the language of the user, with the Chinese file name intact', async () => {
    await t.call('/sysuser/changelanguage', { type: 2 }, admin);
    const res = await t.app.http.inject({
      method: 'POST',
      url: '/apis/systemlog/exportsystemlog',
      payload: { ...range(), logType: 'login' },
      headers: { cookie: admin },
    });
    const visitsRes = await t.app.http.inject({
      method: 'POST',
      url: '/apis/systemlog/exportsystemlog',
      payload: { ...range(), logType: 'visit' },
      headers: { cookie: admin },
    });
    await t.call('/sysuser/changelanguage', { type: 1 }, admin);
    const visits = new ExcelJS.Workbook();
    await visits.xlsx.load(visitsRes.rawPayload as unknown as ArrayBuffer);
    expect(res.headers['content-disposition']).toContain(`filename*=UTF-8''${encodeURIComponent('系统日志')}-`);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0]!;
    expect(sheet.getRow(1).getCell(1).value).toBe('时间');
    expect(sheet.getRow(2).getCell(2).value).toBe('登录');
    expect(visits.worksheets[0]!.getRow(2).getCell(7).value).toBe('系统管理 › 系统日志 /sysMGT/sysJournal');
  });

  it('pages a large log by cursor without overlaps or gaps', async () => {
    const now = Date.now();
    await t.db.insert(sysLog).values(
      Array.from({ length: 45 }, (_, i) => ({
        id: newId(),
        logType: 'visit' as const,
        operatingType: 'visit',
        username: 'pager',
        // Pairs share a moment, so the tie-break on id decides.
        time: new Date(now - Math.floor(i / 2) * 1000),
      })),
    );
    const seen: string[] = [];
    let after: string | undefined;
    let pages = 0;
    do {
      const page = (await list({ username: 'pager', pageSize: 10, ...(after ? { after } : {}) })).body.data;
      expect(page.total).toBe(45);
      expect(page.totalCapped).toBe(false);
      seen.push(...page.list.map((l) => l.id));
      after = page.nextCursor;
      pages++;
    } while (after && pages < 10);
    expect(pages).toBe(5);
    expect(new Set(seen).size).toBe(45);
    expect((await list({ after: 'not a cursor' })).body.data).toMatchObject({ issues: [{ field: 'after' }] });
    expect((await list({ after: 'bm90IGpzb24' })).body.data).toMatchObject({ issues: [{ field: 'after' }] });
  });

  it('words each entry for an operator in their language, never JSON or message keys', async () => {
    const entries = (await list({ pageSize: 100 })).body.data.list;
    const refusedAdd = entries.find((l) => l.requestUrl === '/apis/sysresource/savesysresource')!;
    expect(refusedAdd.content).toMatch(/^System › Resource › Add — resourceName: ; |^System › Resource › Add — /);
    expect(refusedAdd.content).toContain('resourceType: 9');
    expect(refusedAdd.content).not.toContain('{');
    const failed = entries.find((l) => l.logType === 'login' && l.result === 400)!;
    expect(failed.content).toBe('Wrong username or password');
    expect(entries.find((l) => l.logType === 'login' && l.result === 200)!.content).toBe('Logged in');

    await t.call('/sysuser/changelanguage', { type: 2 }, admin);
    const zh = (await list({ pageSize: 100 })).body.data.list;
    await t.call('/sysuser/changelanguage', { type: 1 }, admin);
    expect(zh.find((l) => l.requestUrl === '/apis/sysresource/savesysresource')!.content).toMatch(
      /^系统管理 › 资源管理 › 新增/,
    );
    expect(zh.find((l) => l.logType === 'login' && l.result === 400)!.content).toBe('用户名或密码错误');
    // The browser named the page in English; the log names it in the reader's language.
    expect(zh.find((l) => l.requestUrl === '/sysMGT/sysJournal')!.content).toBe(
      '系统管理 › 系统日志 /sysMGT/sysJournal',
    );
    for (const words of ['Resource › Add', '资源管理 › 新增']) {
      const found = (await list({ logType: 'operation', content: words })).body.data.list;
      expect(found.map((l) => l.requestUrl)).toContain('/apis/sysresource/savesysresource');
    }
  });

  it("shows and exports only entries about the caller's scope: its grid's devices and its organisation's users", async () => {
    const [north, south] = [newId(), newId()];
    await t.db.insert(sysOrg).values([
      { id: north, orgName: 'North', orgCode: 'N', pid: ROOT_ORG_ID },
      { id: south, orgName: 'South', orgCode: 'S', pid: ROOT_ORG_ID },
    ]);
    const [area, otherArea] = [await gridNode(t), await gridNode(t)];
    const journal = await userOfGrid(t, area, ['/sysMGT', RES.sysJournal, RES.sysJournalExport], north);
    await t.createUser({ username: 'north.colleague', password: 'Colleague1', orgId: north });
    await t.createUser({ username: 'south.stranger', password: 'Stranger1', orgId: south });
    const own = (await meterAt(t, area)).devAddr;
    const foreign = [(await meterAt(t, otherArea)).devAddr, (await dcuAt(t, otherArea)).dcuNo];
    const entry = { logType: 'operation' as const, operatingType: 'other', content: '', result: 200 };
    for (const [kind, key] of [
      ['meter', own],
      ['meter', foreign[0]!],
      ['dcu', foreign[1]!],
    ] as const)
      await writeLog(t.db, { ...entry, actor: 'device', username: key, requestUrl: deviceTopic(kind, key, 'reply') });
    for (const username of ['north.colleague', 'south.stranger'])
      await writeLog(t.db, { ...entry, logType: 'login', username, requestUrl: '/apis/sysuser/login' });
    await writeLog(t.db, { ...entry, actor: 'job', username: 'log-retention', requestUrl: '' });

    const names = async (body: Record<string, unknown>) => {
      const page = (await t.call<Page<SystemLog>>('/systemlog/listsystemlog', { ...range(), ...body }, journal)).body;
      return { names: page.data.list.map((l) => l.username), total: page.data.total };
    };
    expect(await names({ actorKind: 'device' })).toEqual({ names: [own], total: 1 });
    const all = await names({ pageSize: 100 });
    expect(all.names).toContain('north.colleague');
    for (const hidden of [...foreign, 'south.stranger', 'log-retention', 'admin'])
      expect(all.names).not.toContain(hidden);
    // Paging counts what the scope lets through: a page of one still says how many there are.
    expect((await names({ pageSize: 1 })).total).toBe(all.total);

    const res = await t.app.http.inject({
      method: 'POST',
      url: '/apis/systemlog/exportsystemlog',
      payload: range(),
      headers: { cookie: journal },
    });
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    const cells: string[] = [];
    workbook.worksheets[0]!.eachRow((row) => {
      row.eachCell((cell) => {
        cells.push(String(cell.value));
      });
    });
    expect(cells).toContain(own);
    expect(cells).toContain('north.colleague');
    for (const hidden of [...foreign, 'south.stranger', 'log-retention', 'admin']) expect(cells).not.toContain(hidden);
  });
});
