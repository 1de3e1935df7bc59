import {
  API_BASE,
  type BatchDeleteResult,
  COMMON_OBIS,
  DLMS_UNITS,
  type EventDefinition,
  OBIS,
  type ObisRecord,
  type Page,
  STANDARD_EVENTS,
} from '@meterdesk/contracts';
import { eq, like } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newId, stableId } from '../../db/ids';
import { eventDefinition, obisItem, sysLog } from '../../db/schema';
import { seedCatalogues } from '../../seed/catalogue-seed';
import { seed } from '../../seed/seed';
import { createTestApp, type TestApp } from '../../test/harness';
import { EventCatalogue, ObisCatalogue } from './obis-catalogue';

type Issues = { data: { issues: { field: string; key: string }[] } };

describe('OBIS and event definition catalogues', () => {
  let t: TestApp;
  let admin: string;
  const obis = (over: Partial<ObisRecord> = {}) => ({
    obis: '1-0:21.7.0.255',
    classId: 3,
    attribute: 2,
    description: 'Instantaneous active power L1',
    unit: DLMS_UNITS.W,
    scaler: -1,
    cgName: 'activePowerL1',
    readInstantly: true,
    ...over,
  });
  const event = (over: Partial<EventDefinition> = {}) => ({
    code: 900,
    name: 'Neutral missing',
    level: 'severe',
    ...over,
  });
  const save = async (path: string, body: object) => {
    const res = await t.call<{ id: string }>(path, body, admin);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.id;
  };

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
  });
  afterAll(() => t.close());

  describe('seeds', () => {
    it('holds every common OBIS object and standard event, as DOMAIN.md and the protocol name them', async () => {
      const items = await t.db.select().from(obisItem);
      for (const common of COMMON_OBIS) {
        expect(items.find((row) => row.obis === common.obis)).toMatchObject({
          classId: common.classId,
          attribute: common.attribute,
          unit: DLMS_UNITS[common.unit],
          scaler: common.scaler,
          cgName: common.cgName,
          readInstantly: common.flags.readInstantly ?? false,
        });
      }
      const events = await t.db.select().from(eventDefinition);
      for (const standard of STANDARD_EVENTS) {
        expect(events.find((row) => row.code === standard.code)).toMatchObject({
          name: standard.name,
          level: standard.level,
        });
      }
    });

    it('a second run changes nothing, and an edit or an operator row with a seeded code survives it', async () => {
      const {
        createTime: _c,
        updateTime: _u,
        ...clock
      } = (await t.db.select().from(obisItem).where(eq(obisItem.obis, OBIS.clock)))[0]!;
      expect((await t.call('/obis/update', { ...clock, description: 'Clock (site time)' }, admin)).status).toBe(200);
      const powerDown = (await t.db.select().from(eventDefinition).where(eq(eventDefinition.code, 1)))[0]!;
      const outage = { ...event({ code: 1, name: 'Outage', level: 'medium' }), id: powerDown.id };
      expect((await t.call('/eventDefinition/update', outage, admin)).status).toBe(200);
      // An operator who replaced a seeded definition by their own keeps it: the seed's code is taken.
      const powerUp = stableId('eventDefinition:2');
      await t.db.delete(eventDefinition).where(eq(eventDefinition.id, powerUp));
      await save('/eventDefinition/save', event({ code: 2, name: 'Supply back', level: 'regular' }));
      const before = {
        obis: await t.db.select().from(obisItem).orderBy(obisItem.id),
        events: await t.db.select().from(eventDefinition).orderBy(eventDefinition.id),
      };
      await t.db.transaction((tx) => seedCatalogues(tx));
      await seed(t.db, {});
      expect(await t.db.select().from(obisItem).orderBy(obisItem.id)).toEqual(before.obis);
      expect(await t.db.select().from(eventDefinition).orderBy(eventDefinition.id)).toEqual(before.events);
      expect(before.obis.find((row) => row.obis === OBIS.clock)?.description).toBe('Clock (site time)');
      expect(before.events.find((row) => row.code === 1)).toMatchObject({ name: 'Outage', level: 'medium' });
      expect(before.events.find((row) => row.code === 2)).toMatchObject({ name: 'Supply back' });
      expect(before.events.find((row) => row.id === powerUp)).toBeUndefined();
    });
  });

  describe('OBIS items', () => {
    it('adds, lists with filters, details, edits and deletes', async () => {
      const id = await save('/obis/save', obis());
      const detail = await t.call<ObisRecord>('/obis/detail', { id }, admin);
      expect(detail.body.data).toMatchObject({
        obis: '1-0:21.7.0.255',
        unit: 27,
        scaler: -1,
        readInstantly: true,
        readPeriodically: false,
        commonConfig: false,
        rateDataType: '',
      });
      const list = await t.call<Page<ObisRecord>>(
        '/obis/list',
        { obis: '21.7', readInstantly: 'true', classId: 3, cgName: 'powerl1' },
        admin,
      );
      expect(list.body.data.list.map((row) => row.id)).toEqual([id]);
      const none = await t.call<Page<ObisRecord>>('/obis/list', { obis: '21.7', readInstantly: false }, admin);
      expect(none.body.data.list).toEqual([]);
      const sorted = await t.call<Page<ObisRecord>>(
        '/obis/list',
        { sortField: 'classId', sortOrder: 'descend', pageSize: 5 },
        admin,
      );
      const classIds = sorted.body.data.list.map((row) => row.classId);
      expect(classIds).toEqual([...classIds].sort((a, b) => b - a));

      expect((await t.call('/obis/update', { ...obis({ scaler: -2, settingChannel: true }), id }, admin)).status).toBe(
        200,
      );
      expect((await t.call<ObisRecord>('/obis/detail', { id }, admin)).body.data).toMatchObject({
        scaler: -2,
        settingChannel: true,
      });
      const deleted = await t.call<BatchDeleteResult>('/obis/delete', { ids: [id] }, admin);
      expect(deleted.body.data).toEqual({ deleted: 1, failures: [] });
      expect((await t.call('/obis/detail', { id }, admin)).status).toBe(404);

      // Each change lands in the operation log, after its answer.
      await vi.waitFor(async () => {
        const entries = await t.db
          .select()
          .from(sysLog)
          .where(like(sysLog.requestUrl, `${API_BASE}/obis/%`));
        expect(entries.map((entry) => [entry.requestUrl, entry.operatingType, entry.username])).toEqual(
          expect.arrayContaining([
            [`${API_BASE}/obis/save`, 'add', 'admin'],
            [`${API_BASE}/obis/update`, 'update', 'admin'],
            [`${API_BASE}/obis/delete`, 'delete', 'admin'],
          ]),
        );
      });
    });

    it.each(['1-0:1.8.0', '1-0:256.8.0.255', 'abc', '1.0.1.8.0.255'])(
      'refuses the OBIS code %s naming the field',
      async (code) => {
        const res = await t.call('/obis/save', obis({ obis: code, cgName: 'bad' }), admin);
        expect(res.status).toBe(400);
        expect((res.body as Issues).data.issues).toEqual([
          expect.objectContaining({ field: 'obis', key: 'obisFormat' }),
        ]);
      },
    );

    it('refuses a class, attribute, scaler, unit or collection name out of its rules', async () => {
      const res = await t.call(
        '/obis/save',
        obis({ classId: 1000, attribute: 256, scaler: 10, unit: 31 as 27, cgName: 'bad name' }),
        admin,
      );
      expect(res.status).toBe(400);
      expect((res.body as Issues).data.issues.map((issue) => [issue.field, issue.key])).toEqual(
        expect.arrayContaining([
          ['classId', 'outOfRange'],
          ['attribute', 'outOfRange'],
          ['scaler', 'outOfRange'],
          ['unit', 'invalidValue'],
          ['cgName', 'cgNameFormat'],
        ]),
      );
      const zero = await t.call('/obis/save', obis({ classId: 0, attribute: 1.5 }), admin);
      expect((zero.body as Issues).data.issues.map((issue) => [issue.field, issue.key])).toEqual([
        ['classId', 'outOfRange'],
        ['attribute', 'wholeNumber'],
      ]);
    });

    it('answers 409 existed for a code or collection name already in the catalogue', async () => {
      const code = await t.call('/obis/save', obis({ obis: OBIS.activeImport, cgName: 'fresh' }), admin);
      expect(code.status).toBe(409);
      expect(code.body).toMatchObject({ msg: 'existed', data: { issues: [{ field: 'obis', key: 'existed' }] } });
      const name = await t.call('/obis/save', obis({ obis: '1-0:22.7.0.255', cgName: 'ACTIVEIMPORT' }), admin);
      expect(name.status).toBe(409);
      expect(name.body).toMatchObject({ data: { issues: [{ field: 'cgName', key: 'existed' }] } });
      expect((await t.call('/obis/check', { field: 'obis', value: OBIS.clock }, admin)).body.data).toEqual({
        existed: true,
      });
      expect((await t.call('/obis/check', { field: 'cgName', value: 'nothingLikeIt' }, admin)).body.data).toEqual({
        existed: false,
      });
    });

    it('exports the filtered rows with the flags as yes/no', async () => {
      const res = await t.app.http.inject({
        method: 'POST',
        url: '/apis/obis/export',
        payload: { obis: '1-0:1.8.', columns: ['obis', 'cgName', 'unit', 'readInstantly'] },
        headers: { cookie: admin },
      });
      expect(res.statusCode).toBe(200);
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
      const sheet = workbook.worksheets[0]!;
      expect(sheet.getRow(1).values).toEqual([
        undefined,
        'OBIS code',
        'Collection item name',
        'Unit',
        'Read instantly',
      ]);
      expect(sheet.getRow(2).values).toEqual([undefined, '1-0:1.8.0.255', 'activeImport', 'Wh (30)', 'Yes']);
      expect(sheet.rowCount).toBe(1 + 5);
    });
  });

  describe('event definitions', () => {
    it('adds with a higher-level event, lists, edits, and answers 409 for a taken code or name', async () => {
      const top = await save('/eventDefinition/save', event({ code: 910, name: 'Supply fault' }));
      const child = await save(
        '/eventDefinition/save',
        event({ parentId: top, cumulativeNumber: 3, analyticalWay: 'count per day' }),
      );
      const detail = await t.call<EventDefinition>('/eventDefinition/detail', { id: child }, admin);
      expect(detail.body.data).toMatchObject({
        parentId: top,
        parentCode: 910,
        parentName: 'Supply fault',
        cumulativeNumber: 3,
      });
      const list = await t.call<Page<EventDefinition>>(
        '/eventDefinition/list',
        { level: 'severe', name: 'neutral' },
        admin,
      );
      expect(list.body.data.list.map((row) => row.code)).toEqual([900]);

      const name = await t.call('/eventDefinition/save', event({ code: 901, name: 'NEUTRAL MISSING' }), admin);
      expect(name.status).toBe(409);
      expect(name.body).toMatchObject({ msg: 'existed', data: { issues: [{ field: 'name', key: 'existed' }] } });
      const code = await t.call('/eventDefinition/save', event({ code: 1, name: 'Another power down' }), admin);
      expect(code.status).toBe(409);
      expect(code.body).toMatchObject({ data: { issues: [{ field: 'code', key: 'existed' }] } });
      expect((await t.call('/eventDefinition/check', { field: 'code', value: '910' }, admin)).body.data).toEqual({
        existed: true,
      });
      const level = await t.call(
        '/eventDefinition/save',
        event({ code: 902, name: 'X', level: 'fatal' as 'severe' }),
        admin,
      );
      expect((level.body as Issues).data.issues).toEqual([
        expect.objectContaining({ field: 'level', key: 'invalidValue' }),
      ]);
    });

    it('refuses a higher-level event that would close a cycle, or does not exist', async () => {
      const a = await save('/eventDefinition/save', event({ code: 920, name: 'A' }));
      const b = await save('/eventDefinition/save', event({ code: 921, name: 'B', parentId: a }));
      const c = await save('/eventDefinition/save', event({ code: 922, name: 'C', parentId: b }));
      for (const [id, parentId] of [
        [a, c],
        [a, a],
      ]) {
        const res = await t.call(
          '/eventDefinition/update',
          { ...event({ code: 920, name: 'A' }), id, parentId },
          admin,
        );
        expect(res.status).toBe(400);
        expect((res.body as Issues).data.issues).toEqual([
          expect.objectContaining({ field: 'parentId', key: 'eventParentCycle' }),
        ]);
      }
      const ghost = await t.call('/eventDefinition/save', event({ code: 923, name: 'D', parentId: newId() }), admin);
      expect((ghost.body as Issues).data.issues).toEqual([
        expect.objectContaining({ field: 'parentId', key: 'eventDefinitionNotFound' }),
      ]);
      // Moving C to the top is no cycle.
      expect(
        (await t.call('/eventDefinition/update', { ...event({ code: 922, name: 'C' }), id: c }, admin)).status,
      ).toBe(200);
    });

    it('refuses to delete a definition another names as its higher-level event, unless both go', async () => {
      const up = await save('/eventDefinition/save', event({ code: 930, name: 'Up' }));
      const down = await save('/eventDefinition/save', event({ code: 931, name: 'Down', parentId: up }));
      const refused = await t.call<BatchDeleteResult>('/eventDefinition/delete', { ids: [up] }, admin);
      expect(refused.body.data).toEqual({
        deleted: 0,
        failures: [{ id: up, name: 'Up', key: 'eventDefinitionInUse' }],
      });
      const both = await t.call<BatchDeleteResult>('/eventDefinition/delete', { ids: [up, down] }, admin);
      expect(both.body.data).toEqual({ deleted: 2, failures: [] });
    });

    it('exports the rows in code order', async () => {
      const res = await t.app.http.inject({
        method: 'POST',
        url: '/apis/eventDefinition/export',
        payload: { level: 'severe', name: 'cover opened', columns: ['code', 'name', 'level'] },
        headers: { cookie: admin },
      });
      expect(res.statusCode).toBe(200);
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
      const sheet = workbook.worksheets[0]!;
      expect(sheet.getRow(1).values).toEqual([undefined, 'Event code', 'Event name', 'Level']);
      expect(sheet.getRow(2).values).toEqual([undefined, 40, 'Terminal cover opened', 'Severe']);
      expect(sheet.getRow(3).values).toEqual([undefined, 44, 'Meter cover opened', 'Severe']);
      expect(sheet.rowCount).toBe(3);
    });
  });

  it('answers 403 to a user without the page or the button, and lets a reader read only', async () => {
    const nothing = await t.createRole('catalogue-none', ['/dashboard']);
    await t.createUser({ username: 'cat-none', password: 'Clerk@123', roleIds: [nothing] });
    const none = await t.login('cat-none', 'Clerk@123');
    for (const path of ['/obis/list', '/obis/export', '/eventDefinition/list', '/eventDefinition/options']) {
      expect((await t.call(path, {}, none)).status, path).toBe(403);
    }
    const reader = await t.createRole('catalogue-reader', [
      '/parameterSetting/obisManagement',
      '/parameterSetting/obisManagement/viewObis',
      '/parameterSetting/eventDefinition',
    ]);
    await t.createUser({ username: 'cat-reader', password: 'Clerk@123', roleIds: [reader] });
    const read = await t.login('cat-reader', 'Clerk@123');
    expect((await t.call('/obis/list', {}, read)).status).toBe(200);
    expect((await t.call('/eventDefinition/list', {}, read)).status).toBe(200);
    expect((await t.call('/obis/save', obis({ obis: '1-0:23.7.0.255', cgName: 'x1' }), read)).status).toBe(403);
    expect((await t.call('/obis/delete', { ids: [newId()] }, read)).status).toBe(403);
    expect((await t.call('/eventDefinition/save', event({ code: 940, name: 'Nope' }), read)).status).toBe(403);
    expect((await t.call('/eventDefinition/delete', { ids: [newId()] }, read)).status).toBe(403);
  });

  describe('what the head-end reads', () => {
    it('ObisCatalogue answers the read-instantly items and items by code', async () => {
      const catalogue = new ObisCatalogue(t.db);
      const instant = await catalogue.readInstantly();
      expect(instant.map((item) => item.obis)).toContain(OBIS.voltageL1);
      expect(instant.map((item) => item.obis)).not.toContain(OBIS.loadProfile);
      const byCode = await catalogue.byCodes([OBIS.voltageL1, OBIS.voltageL1, '9-9:9.9.9.9']);
      expect([...byCode.keys()]).toEqual([OBIS.voltageL1]);
      expect(byCode.get(OBIS.voltageL1)).toEqual({
        obis: OBIS.voltageL1,
        classId: 3,
        attribute: 2,
        unit: DLMS_UNITS.V,
        scaler: -1,
        description: 'Instantaneous voltage L1',
        cgName: 'voltageL1',
        readInstantly: true,
        channelOption: true,
        settingChannel: false,
      });
      expect(await catalogue.byCodes([])).toEqual(new Map());
      // A parameter sync that names no channels captures those flagged channel option.
      const channels = await catalogue.channels();
      expect(channels).toContain(OBIS.activeImport);
      expect(channels).not.toContain(OBIS.clock);
    });

    it('EventCatalogue answers a code with its name, level and higher-level code', async () => {
      const events = new EventCatalogue(t.db);
      const up = await save('/eventDefinition/save', event({ code: 950, name: 'Tamper' }));
      await save('/eventDefinition/save', event({ code: 951, name: 'Magnet detected', level: 'medium', parentId: up }));
      expect(await events.byCode(951)).toEqual({
        code: 951,
        name: 'Magnet detected',
        description: '',
        level: 'medium',
        parentCode: 950,
        analyticalWay: '',
        cumulativeNumber: 0,
      });
      expect(await events.byCode(64999)).toBeUndefined();
      const all = await events.all();
      expect(all.map((item) => item.code)).toEqual([...all.map((item) => item.code)].sort((a, b) => a - b));
      expect(all.find((item) => item.code === 40)).toMatchObject({ name: 'Terminal cover opened', level: 'severe' });
    });
  });
});
