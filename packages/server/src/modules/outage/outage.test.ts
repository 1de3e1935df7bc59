import {
  type DarkMeter,
  OUTAGE_RES,
  type OutageNode,
  type OutagePoints,
  type OutageSummary,
  type Page,
  POWER_EVENTS,
  ROOT_PARENT_ID,
} from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderContent } from '../../audit/log-content';
import { newId } from '../../db/ids';
import { meter, powerGrid, sysLog } from '../../db/schema';
import { dcuAt, exportedRows, meterAt, suppliedMeter, userOfGrid } from '../../test/archive-fixtures';
import { createTestApp, type TestApp } from '../../test/harness';

let t: TestApp;
let admin: string;
beforeAll(async () => {
  t = await createTestApp();
  admin = await t.loginAdmin();
});
afterAll(() => t.close());

const GIS = OUTAGE_RES.view[0];
const HOUR = 3_600_000;
/** A time `minutes` after a fixed point two days ago: inside retention, never in the future. */
const base = Math.floor((Date.now() - 2 * 24 * HOUR) / HOUR) * HOUR;
const at = (minutes: number) => new Date(base + minutes * 60_000);

async function node(name: string, gridType: number, parentId: string = ROOT_PARENT_ID): Promise<string> {
  const id = newId();
  const gridCode = `${name}${id.slice(0, 6)}`.toUpperCase();
  await t.db.insert(powerGrid).values({ id, gridCode, gridName: `${name} ${id.slice(0, 6)}`, gridType, parentId });
  return id;
}

const meterEvent = (meterId: string, code: number, ts: Date) => ({ meterId, ts, code, level: 2, data: null });
const store = (meterEvents: ReturnType<typeof meterEvent>[], dcuEvents: ReturnType<typeof meterEvent>[] = []) =>
  t.app.readingIngest.push({
    meterEvents,
    dcuEvents: dcuEvents.map(({ meterId, ...e }) => ({ ...e, dcuId: meterId })),
  });
const down = (meterId: string, ts: Date) => meterEvent(meterId, POWER_EVENTS.meter.down, ts);
const up = (meterId: string, ts: Date) => meterEvent(meterId, POWER_EVENTS.meter.up, ts);

const summary = async (cookie: string, gridId?: string) => {
  const res = await t.call<OutageSummary>('/outage/summary', gridId ? { gridId } : {}, cookie);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
};
const darkMeters = async (cookie: string, gridId?: string) => {
  const res = await t.call<Page<DarkMeter>>('/outage/meters', gridId ? { gridId } : {}, cookie);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
};
const nodeOf = (s: OutageSummary, gridId: string) => s.nodes.find((n) => n.gridId === gridId) as OutageNode;

describe('outage state from power events', () => {
  it('keeps each meter dark from its first power-down after its latest power-up, whatever order events arrive in', async () => {
    const area = await node('A', 3);
    const m = await meterAt(t, area);
    const sinceOf = async () => (await darkMeters(admin, area)).list.map((r) => r.darkSince);

    await store([down(m.id, at(60))]);
    expect(await sinceOf()).toEqual([at(60).toISOString()]);
    // The same last gasp again changes nothing; an earlier one with no power-up between is where it began.
    await store([down(m.id, at(60))]);
    await store([down(m.id, at(50))]);
    expect(await sinceOf()).toEqual([at(50).toISOString()]);
    // A power-up that arrives late, from between the two: dark again from the later power-down.
    await store([up(m.id, at(55))]);
    expect(await sinceOf()).toEqual([at(60).toISOString()]);
    await store([up(m.id, at(90))]);
    expect(await sinceOf()).toEqual([]);
    // A last gasp older than the latest power-up, and one at the very instant of a power-up: supplied.
    await store([down(m.id, at(80))]);
    await store([down(m.id, at(120)), up(m.id, at(120))]);
    expect(await sinceOf()).toEqual([]);
    // Several in one write: dark from the first power-down after the write's power-up.
    await store([down(m.id, at(130)), up(m.id, at(135)), down(m.id, at(150)), down(m.id, at(140))]);
    expect(await sinceOf()).toEqual([at(140).toISOString()]);
  });
});

describe('outages rolled up the grid tree, within the caller’s scope', () => {
  let region: string;
  let feeder: string;
  let areaA: string;
  let areaB: string;
  let otherRegion: string;
  let areaC: string;
  let a1: { id: string; devAddr: string };
  let a2: { id: string; devAddr: string };
  let b1: { id: string; devAddr: string };
  let dcuB: { id: string; dcuNo: string };
  let c1: { id: string; devAddr: string };

  beforeAll(async () => {
    region = await node('R', 0);
    feeder = await node('F', 2, region);
    areaA = await node('TA', 3, feeder);
    areaB = await node('TB', 3, feeder);
    otherRegion = await node('R2', 0);
    areaC = await node('TC', 3, otherRegion);
    a1 = await suppliedMeter(t, areaA);
    a2 = await suppliedMeter(t, areaA);
    b1 = await suppliedMeter(t, areaB);
    dcuB = await dcuAt(t, areaB);
    c1 = await suppliedMeter(t, areaC);
    await t.db.update(meter).set({ latitude: 24.61, longitude: 46.61 }).where(eq(meter.id, a1.id));
    await t.db.update(meter).set({ latitude: 24.62, longitude: 46.63 }).where(eq(meter.id, a2.id));
    await store(
      [down(a1.id, at(10)), down(a2.id, at(12)), up(b1.id, at(5)), down(c1.id, at(30))],
      [meterEvent(dcuB.id, POWER_EVENTS.dcu.down, at(20))],
    );
  });

  it('says which areas and feeders are dark, with meters, consumers, DCUs and since when', async () => {
    const s = await summary(admin, region);
    expect(s).toMatchObject({ darkMeters: 2, darkConsumers: 2, darkDcus: 1, darkAreas: 1, affectedAreas: 1 });
    expect(s.since).toBe(at(10).toISOString());
    expect(s.nodes.map((n) => [n.gridId, n.depth, n.parentId])).toEqual([
      [region, 0, null],
      [feeder, 1, region],
      [areaA, 2, feeder],
      [areaB, 2, feeder],
    ]);
    expect(nodeOf(s, areaA)).toMatchObject({
      ownMeters: 2,
      ownDarkMeters: 2,
      darkMeters: 2,
      darkConsumers: 2,
      areas: 1,
      darkAreas: 1,
      dark: true,
      since: at(10).toISOString(),
    });
    expect(nodeOf(s, areaA).center?.lat).toBeCloseTo(24.615, 6);
    expect(nodeOf(s, areaA).center?.lng).toBeCloseTo(46.62, 6);
    // Its DCU is dark, its meter is not: affected, not dark.
    expect(nodeOf(s, areaB)).toMatchObject({ ownDarkMeters: 0, darkMeters: 0, darkDcus: 1, dark: false, center: null });
    expect(nodeOf(s, feeder)).toMatchObject({ darkMeters: 2, darkDcus: 1, areas: 2, darkAreas: 1, dark: false });
    expect(nodeOf(s, region)).toMatchObject({ darkMeters: 2, since: at(10).toISOString() });

    const list = await darkMeters(admin, region);
    expect(list.total).toBe(2);
    expect(list.list.map((r) => [r.devAddr, r.gridId, r.darkSince])).toEqual([
      [a1.devAddr, areaA, at(10).toISOString()],
      [a2.devAddr, areaA, at(12).toISOString()],
    ]);
    expect(list.list[0]?.consumerCode).not.toBe('');

    // Supply back in one area: the feeder has none dark left, the DCU still is.
    await store([up(a1.id, at(40)), up(a2.id, at(41))]);
    const after = await summary(admin, feeder);
    expect(after).toMatchObject({ darkMeters: 0, darkDcus: 1, darkAreas: 0, affectedAreas: 0 });
    expect(after.nodes.map((n) => n.gridId)).toEqual([feeder, areaB]);
    await store([down(a1.id, at(50)), down(a2.id, at(51))]);
  });

  it('shows a user only the outages of their grid, from their scope down', async () => {
    const areaUser = await userOfGrid(t, areaA, [GIS]);
    const s = await summary(areaUser);
    expect(s.nodes.map((n) => [n.gridId, n.depth, n.parentId])).toEqual([[areaA, 0, null]]);
    expect(s.darkMeters).toBe(2);
    expect((await darkMeters(areaUser)).list.map((r) => r.devAddr).sort()).toEqual([a1.devAddr, a2.devAddr].sort());

    const otherUser = await userOfGrid(t, otherRegion, [GIS]);
    const other = await summary(otherUser);
    expect(other.nodes.map((n) => n.gridId)).toEqual([otherRegion, areaC]);
    expect(other.darkMeters).toBe(1);
    expect((await darkMeters(otherUser)).list.map((r) => r.devAddr)).toEqual([c1.devAddr]);
    // Another grid's node answers as one that does not exist, naming the field; so do the map and the export.
    for (const path of ['/outage/summary', '/outage/meters', '/outage/points']) {
      const res = await t.call(
        path,
        { gridId: areaA, ...(path === '/outage/points' ? { west: 0, south: 0, east: 1, north: 1, zoom: 5 } : {}) },
        otherUser,
      );
      expect(res.status, path).toBe(404);
      expect(JSON.stringify(res.body.data)).toContain('gridId');
    }
  });

  it('refuses bad input and callers without a page that shows outages', async () => {
    expect((await t.call('/outage/summary', { gridId: 'nonsense' }, admin)).status).toBe(400);
    expect((await t.call('/outage/summary', { gridId: newId() }, admin)).status).toBe(404);
    expect((await t.call('/outage/meters', { pageSize: 100_000 }, admin)).status).toBe(400);
    const points = await t.call('/outage/points', { west: 0, south: 5, east: 1, north: 1, zoom: 5 }, admin);
    expect(points.status).toBe(400);
    const stranger = await userOfGrid(t, areaA, ['/archiveSetting/meter']);
    expect((await t.call('/outage/summary', {}, stranger)).status).toBe(403);
    const viewer = await userOfGrid(t, areaA, [GIS]);
    expect((await t.call('/outage/export', {}, viewer)).status).toBe(403);
  });

  it('draws the dark meters in view and counts those without a position', async () => {
    const res = await t.call<OutagePoints>(
      '/outage/points',
      { west: 46, south: 24, east: 47, north: 25, zoom: 18, gridId: region },
      admin,
    );
    expect(res.status).toBe(200);
    expect(res.body.data.points.map((p) => p.label).sort()).toEqual([a1.devAddr, a2.devAddr].sort());
    expect(res.body.data).toMatchObject({ total: 2, unplaced: 0, clusters: [] });
    const far = await t.call<OutagePoints>(
      '/outage/points',
      { west: 46, south: 24, east: 47, north: 25, zoom: 3 },
      admin,
    );
    expect(far.body.data.clusters.some((c) => c.count >= 2)).toBe(true);
    const other = await t.call<OutagePoints>(
      '/outage/points',
      { west: 46, south: 24, east: 47, north: 25, zoom: 18, gridId: otherRegion },
      admin,
    );
    expect(other.body.data).toMatchObject({ total: 0, unplaced: 1 });
  });

  it('exports the dark meters as the panel lists them', async () => {
    const exporter = await userOfGrid(t, region, [GIS, OUTAGE_RES.export]);
    const rows = await exportedRows(t, 'outage', exporter, { gridId: feeder });
    expect(rows[0]).toEqual(['Meter SN', 'Power grid', 'DCU', 'Consumer ID', 'Consumer name', 'Dark since']);
    expect(rows.slice(1).map((r) => r[0])).toEqual([a1.devAddr, a2.devAddr]);
    const pdf = await t.app.http.inject({
      method: 'POST',
      url: '/apis/outage/export',
      payload: { format: 'pdf' },
      headers: { cookie: exporter },
    });
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toContain('pdf');
  });
});

describe('simulated outages', () => {
  it('answers 409 when no simulator runs, and refuses a caller without the button', async () => {
    const area = await node('S', 3);
    const res = await t.call('/simulator/power', { gridId: area, powered: false }, admin);
    expect(res.status).toBe(409);
    expect(res.body.msg).toBe('simulatorNotRunning');
    // The operation log names the node, not its id (the dashboard's and the system log's content).
    const [entry] = await t.db.select().from(sysLog).where(eq(sysLog.requestUrl, '/apis/simulator/power'));
    expect(entry).toBeDefined();
    const content = renderContent(entry as typeof sysLog.$inferSelect, 1);
    expect(content).toContain(`gridName: S ${area.slice(0, 6)}`);
    expect(content).not.toContain(area);
    const viewer = await userOfGrid(t, area, [GIS]);
    expect((await t.call('/simulator/power', { gridId: area, powered: false }, viewer)).status).toBe(403);
  });
});
