import { type DeviceProfileRow, METER_RES, type Meter, OBIS, type Page, RESULT_CODES } from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../db/ids';
import { meter, meterLive } from '../../db/schema';
import type { NewCommand } from '../../headend/head-end';
import { profileRows } from '../../readings/rows';
import { dcuAt, meterAt } from '../../test/archive-fixtures';
import { addGridNode, loginGridUser } from '../../test/grid';
import { createTestApp, type TestApp } from '../../test/harness';
import { scriptedDevice } from '../../test/scripted-device';

type Answer = Page<Meter> & { nextCursor?: string };

const DAY_MS = 86_400_000;
const INTERVAL_MS = 15 * 60_000;
const POLL = { timeout: 40_000 };

let t: TestApp;
let admin: string;
let gridId: string;

beforeAll(async () => {
  t = await createTestApp({}, { headEnd: true });
  admin = await t.loginAdmin();
  gridId = await addGridNode(t, `LIVE${newId().slice(0, 6)}`);
});
afterAll(() => t?.close());

const detail = async (id: string) => {
  const res = await t.call<Meter>('/meter/detail', { id }, admin);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
};

describe('a meter’s live state, kept as devices deliver', () => {
  it('is online while its own status and its DCU’s say so, offline as soon as the DCU is', async () => {
    const site = await dcuAt(t, gridId);
    const m = await meterAt(t, gridId, undefined, site.id);
    expect(await detail(m.id)).toMatchObject({ linkState: 'offline', lastCommTime: null });

    const dcuDevice = await scriptedDevice(t.broker, 'dcu', site.dcuNo);
    const meterDevice = await scriptedDevice(t.broker, 'meter', m.devAddr);
    await meterDevice.setOnline(true);
    // Its own status says online, but the DCU it speaks through has never been heard of.
    await expect.poll(async () => (await detail(m.id)).lastCommTime, POLL).not.toBeNull();
    expect((await detail(m.id)).linkState).toBe('offline');
    await dcuDevice.setOnline(true);
    await expect.poll(async () => (await detail(m.id)).linkState, POLL).toBe('online');
    await dcuDevice.setOnline(false);
    await expect.poll(async () => (await detail(m.id)).linkState, POLL).toBe('offline');
    await dcuDevice.setOnline(true);
    await expect.poll(async () => (await detail(m.id)).linkState, POLL).toBe('online');
    await meterDevice.setOnline(false);
    await expect.poll(async () => (await detail(m.id)).linkState, POLL).toBe('offline');
    await Promise.all([dcuDevice.stop(), meterDevice.stop()]);
  });

  it('takes the newest register read, a read of older days leaving it, and counts any delivery as a communication', async () => {
    const m = await meterAt(t, gridId);
    const day = Math.floor(Date.now() / DAY_MS) * DAY_MS - DAY_MS;
    const intervals = (from: number, count: number, base: number) =>
      profileRows(
        m.id,
        Array.from(
          { length: count },
          (_, i): DeviceProfileRow => ({
            ts: new Date(from + (i + 1) * INTERVAL_MS).toISOString(),
            values: { [OBIS.activeImport]: base + i * 10 },
          }),
        ),
      );
    const before = Date.now();
    await t.app.readingIngest.push({ profile: intervals(day, 8, 120_000) });
    const read = await detail(m.id);
    expect(read).toMatchObject({ lastReading: 120.07, lastReadTime: new Date(day + 8 * INTERVAL_MS).toISOString() });
    expect(Date.parse(String(read.lastCommTime))).toBeGreaterThanOrEqual(before - 1000);

    // Days before, read again later (a repair): the last reading stays the newest one.
    await t.app.readingIngest.push({
      profile: intervals(day - DAY_MS, 4, 100_000),
      daily: [{ meterId: m.id, day: new Date(day - 2 * DAY_MS).toISOString().slice(0, 10), activeImport: 90_000 }],
    });
    expect(await detail(m.id)).toMatchObject({ lastReading: 120.07 });
    // A frozen value at the midnight closing yesterday is newer than yesterday's 02:00 interval.
    await t.app.readingIngest.push({
      daily: [{ meterId: m.id, day: new Date(day).toISOString().slice(0, 10), activeImport: 125_000 }],
    });
    expect(await detail(m.id)).toMatchObject({ lastReading: 125, lastReadTime: new Date(day + DAY_MS).toISOString() });
  });

  it('learns the relay from relay events and from relay commands and reads the meter answered', async () => {
    const m = await meterAt(t, gridId);
    const at = Date.now() - 60_000;
    await t.app.readingIngest.push({
      meterEvents: [
        { meterId: m.id, ts: new Date(at - 1000), code: 63, level: 0, data: { relay: 'main', state: 1 } },
        { meterId: m.id, ts: new Date(at), code: 62, level: 1, data: { relay: 'main', state: 0 } },
        // The external relay is not the one shown.
        { meterId: m.id, ts: new Date(at + 1000), code: 63, level: 0, data: { relay: 'external', state: 1 } },
      ],
    });
    expect((await detail(m.id)).relayState).toBe(0);

    const device = await scriptedDevice(t.broker, 'meter', m.devAddr, [
      RESULT_CODES.success,
      (command) => ({ reqId: command.reqId, code: '00', items: [{ obis: OBIS.mainRelay, attribute: 3, value: 2 }] }),
      RESULT_CODES.failure,
    ]);
    await device.setOnline(true);
    const send = async (operation: NewCommand['operation'], item: { attribute: number }, op: 'action' | 'get') => {
      const [row] = await t.app.headEnd.enqueue(t.db, [
        {
          planId: null,
          deviceKind: 'meter',
          deviceKey: m.devAddr,
          viaDcu: null,
          meterId: m.id,
          dcuId: null,
          gridId,
          operation,
          command: { op, items: [{ obis: OBIS.mainRelay, classId: 70, ...item }] },
          priority: 5,
          bulk: false,
          // A command lost on its way (the broker under a busy machine) is sent again rather than failing the test.
          timeoutSeconds: 10,
          expiresInSeconds: 60,
          waitOnline: false,
          maxTimeoutRetries: 3,
          maxBusyRetries: 0,
          requestedBy: 'test',
          audited: false,
        },
      ]);
      t.app.headEnd.kick();
      return row;
    };
    await send('relayConnect', { attribute: 2 }, 'action');
    await expect.poll(async () => (await detail(m.id)).relayState, POLL).toBe(1);
    await send('read', { attribute: 3 }, 'get');
    await expect.poll(async () => (await detail(m.id)).relayState, POLL).toBe(2);
    // A disconnect the meter refused leaves the relay where it was: its answer is recorded as a
    // communication by the same statement that would have moved the relay.
    const refusedAfter = Date.now();
    await send('relayDisconnect', { attribute: 1 }, 'action');
    await expect
      .poll(async () => Date.parse(String((await detail(m.id)).lastCommTime)), POLL)
      .toBeGreaterThanOrEqual(refusedAfter);
    expect((await detail(m.id)).relayState).toBe(2);
    await device.stop();
  });

  it('gives every meter its live row when the meter is made, and takes it away with the meter', async () => {
    const res = await t.call<{ id: string }>('/meter/save', { devAddr: `NEW${newId().slice(0, 8)}`, gridId }, admin);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await detail(res.body.data.id)).toMatchObject({ linkState: 'offline', relayState: null });
    expect((await t.call('/meter/delete', { ids: [res.body.data.id] }, admin)).status).toBe(200);
    expect(await t.db.select().from(meterLive).where(eq(meterLive.meterId, res.body.data.id))).toEqual([]);
  });
});

describe('the meter list’s live columns', () => {
  interface Fixture {
    id: string;
    devAddr: string;
    online: boolean;
    relay: number | null;
    comm: number | null;
    area: 'a' | 'b';
  }
  const fixtures: Fixture[] = [];
  const area: Record<'root' | 'a' | 'b', string> = {} as never;
  const base = Date.parse('2026-01-05T00:00:00Z');

  beforeAll(async () => {
    area.root = await addGridNode(t, `LR${newId().slice(0, 6)}`);
    area.a = await addGridNode(t, `LA${newId().slice(0, 6)}`, area.root);
    area.b = await addGridNode(t, `LB${newId().slice(0, 6)}`, area.root);
    for (let i = 0; i < 23; i++) {
      const f: Fixture = {
        id: newId(),
        devAddr: `LIVE${String(i).padStart(4, '0')}`,
        online: i % 3 !== 0,
        relay: i % 4 === 0 ? 0 : i % 4 === 1 ? null : 1,
        // Three meters never communicated; the others at one of five moments (ties for the tie-break).
        comm: i % 8 === 7 ? null : base + (i % 5) * 60_000,
        area: i % 2 ? 'a' : 'b',
      };
      fixtures.push(f);
      await t.db.insert(meter).values({ id: f.id, devAddr: f.devAddr, gridId: area[f.area] });
      await t.db
        .update(meterLive)
        .set({ online: f.online, relayState: f.relay, lastCommAt: f.comm === null ? null : new Date(f.comm) })
        .where(eq(meterLive.meterId, f.id));
    }
  });

  const list = (body: object, cookie = admin) => t.call<Answer>('/meter/list', { gridId: area.root, ...body }, cookie);
  async function allPages(body: object, cookie = admin) {
    const ids: string[] = [];
    let after: string | undefined;
    let pages = 0;
    do {
      const res = await list({ ...body, ...(after ? { after } : {}) }, cookie);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      ids.push(...res.body.data.list.map((m) => m.id));
      after = res.body.data.nextCursor;
      pages++;
    } while (after && pages < 50);
    return ids;
  }
  const bySerial = (selected: Fixture[]) =>
    [...selected].sort((a, b) => a.devAddr.localeCompare(b.devAddr)).map((f) => f.id);

  it('filters by online state and relay, page after page by cursor, within the filters and scope', async () => {
    expect(await allPages({ pageSize: 2, linkState: 'offline' })).toEqual(bySerial(fixtures.filter((f) => !f.online)));
    expect(await allPages({ pageSize: 3, linkState: 'online', relayState: 1 })).toEqual(
      bySerial(fixtures.filter((f) => f.online && f.relay === 1)),
    );
    const first = await list({ pageSize: 2, linkState: 'offline' });
    expect(first.body.data).toMatchObject({ total: fixtures.filter((f) => !f.online).length, totalCapped: false });
    expect(first.body.data.list[0]).toMatchObject({ linkState: 'offline' });

    // A user of one area pages its meters only, with the filter, node by node.
    const user = await loginGridUser(t, `live-${newId().slice(0, 6)}`, [area.a], [METER_RES.page]);
    expect(await allPages({ pageSize: 2, linkState: 'offline', gridId: undefined }, user)).toEqual(
      bySerial(fixtures.filter((f) => !f.online && f.area === 'a')),
    );
  });

  it('sorts by last communication, never heard from as the oldest, each meter once across pages', async () => {
    const comm = (f: Fixture) => f.comm ?? Number.NEGATIVE_INFINITY;
    const ascending = [...fixtures].sort((a, b) => comm(a) - comm(b) || a.id.localeCompare(b.id)).map((f) => f.id);
    // Not an order of the archive's own index: pages by number.
    const byNumber = async (sortOrder: string) => {
      const ids: string[] = [];
      for (let curPage = 1; curPage <= 5; curPage++) {
        const res = await list({ pageSize: 5, curPage, sortField: 'lastCommTime', sortOrder });
        expect(res.body.data.nextCursor).toBeUndefined();
        ids.push(...res.body.data.list.map((m) => m.id));
      }
      return ids;
    };
    expect(await byNumber('ascend')).toEqual(ascending);
    const descending = [...fixtures].sort((a, b) => comm(b) - comm(a) || a.id.localeCompare(b.id)).map((f) => f.id);
    expect(await byNumber('descend')).toEqual(descending);
  });

  it('refuses an unknown online state or relay state naming the field', async () => {
    for (const body of [{ linkState: 'sleeping' }, { relayState: 7 }, { sortField: 'relayState' }]) {
      const res = await list(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.data).toMatchObject({ issues: [{ field: Object.keys(body)[0] }] });
    }
  });

  it('exports the live columns as the list shows them', async () => {
    const res = await t.app.http.inject({
      method: 'POST',
      url: '/apis/meter/export',
      payload: { gridId: area.root, linkState: 'online', columns: ['devAddr', 'linkState', 'relayState'] },
      headers: { cookie: admin },
    });
    expect(res.statusCode).toBe(200);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    const rows: string[][] = [];
    workbook.worksheets[0]?.eachRow((row) => {
      rows.push([1, 2, 3].map((n) => String(row.getCell(n).value ?? '')));
    });
    expect(rows[0]).toEqual(['Meter SN', 'Online', 'Relay']);
    const online = fixtures.filter((f) => f.online).sort((a, b) => a.devAddr.localeCompare(b.devAddr));
    expect(rows.slice(1)).toEqual(
      online.map((f) => [f.devAddr, 'Online', f.relay === null ? '' : f.relay === 0 ? 'Disconnected' : 'Connected']),
    );
  });
});
