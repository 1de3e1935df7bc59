import {
  ACTIVE_IMPORT_RATES,
  METER_RES,
  type MeterFrozen,
  type MeterProfile,
  OBIS,
  type VirtualMembers,
} from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meter, tariff } from '../../db/schema';
import { rollupDay } from '../../readings/rollups';
import { dailyRows, profileRows } from '../../readings/rows';
import { ReadingWriter } from '../../readings/writer';
import { gridNode, meterAt, tariffOf, userOfGrid } from '../../test/archive-fixtures';
import { createTestApp, type TestApp } from '../../test/harness';
import { fieldIssues } from '../../test/issues';
import { dailyConsumption, tariffPrices } from './virtual-meter';

const DAY = '2026-10-31';
const BEFORE = '2026-10-30';
const at = (day: string, minutes: number) => new Date(Date.parse(`${day}T00:00:00Z`) + minutes * 60_000).toISOString();

let t: TestApp;
let admin: string;
let scoped: string;
let gridA: string;
const id = { main: '', tenant1: '', tenant2: '', prosumer: '', mall: '', net: '', theirs: '' };

async function virtualAt(gridId: string): Promise<string> {
  const m = await meterAt(t, gridId);
  await t.db.update(meter).set({ virtual: true }).where(eq(meter.id, m.id));
  return m.id;
}
const setMembers = (virtualId: string, members: object[], cookie = admin) =>
  t.call('/meter/members/save', { id: virtualId, members }, cookie);
const profile = async (meterId: string) =>
  (await t.call<MeterProfile>('/readings/profile', { meterId, day: DAY }, admin)).body.data;
const importAt = (p: MeterProfile, minutes: number) =>
  p.rows.find((r) => r.ts === at(DAY, minutes))?.values.activeImport;

/**
 * Four intervals of a day: the main meter 1000 Wh a step, tenants 300 and 200; tenant 2 misses the
 * 00:45 interval. The prosumer imports 500 and exports 120 a step. Registers are cumulative.
 */
async function writeReadings() {
  const writer = new ReadingWriter(t.db);
  const steps = [15, 30, 45, 60];
  const series = (base: number, step: number, skip?: number) =>
    steps
      .filter((m) => m !== skip)
      .map((m) => ({ ts: at(DAY, m), values: { [OBIS.activeImport]: base + (m / 15) * step } }));
  const prosumer = steps.map((m) => ({
    ts: at(DAY, m),
    values: { [OBIS.activeImport]: 50_000 + (m / 15) * 500, [OBIS.activeExport]: 7_000 + (m / 15) * 120 },
  }));
  // Frozen registers (all on rate 1) closing BEFORE and DAY; tenant 2 has no row closing DAY.
  const frozen = (closing: [number, number][]) =>
    closing.map(([day, value]) => ({
      ts: at(day === 0 ? DAY : '2026-11-01', 0),
      values: { [OBIS.activeImport]: value, [ACTIVE_IMPORT_RATES[0] as string]: value },
    }));
  await writer.write({
    profile: [
      ...profileRows(id.main, series(100_000, 1000)),
      ...profileRows(id.tenant1, series(20_000, 300)),
      ...profileRows(id.tenant2, series(10_000, 200, 45)),
      ...profileRows(id.prosumer, prosumer),
    ],
    daily: [
      ...dailyRows(
        id.main,
        frozen([
          [0, 100_000],
          [1, 124_000],
        ]),
      ),
      ...dailyRows(
        id.tenant1,
        frozen([
          [0, 20_000],
          [1, 27_000],
        ]),
      ),
      ...dailyRows(id.tenant2, frozen([[0, 10_000]])),
      ...dailyRows(id.prosumer, [
        { ts: at(DAY, 0), values: { [OBIS.activeImport]: 50_000, [OBIS.activeExport]: 7_000 } },
        { ts: at('2026-11-01', 0), values: { [OBIS.activeImport]: 62_000, [OBIS.activeExport]: 9_880 } },
      ]),
    ],
  });
  await rollupDay(t.db, BEFORE);
  await rollupDay(t.db, DAY);
}

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.loginAdmin();
  gridA = await gridNode(t);
  const gridB = await gridNode(t);
  for (const key of ['main', 'tenant1', 'tenant2', 'prosumer'] as const) id[key] = (await meterAt(t, gridA)).id;
  id.mall = await virtualAt(gridA);
  id.net = await virtualAt(gridA);
  id.theirs = (await meterAt(t, gridB)).id;
  scoped = await userOfGrid(t, gridA, [METER_RES.page, METER_RES.detail, METER_RES.edit]);
  await writeReadings();
});
afterAll(() => t?.close());

describe('virtual meters', () => {
  it('keeps its members; refuses itself, a meter twice, a virtual member, a real meter and a member outside the scope, naming the field', async () => {
    const members = [
      { meterId: id.main, sign: 1 },
      { meterId: id.tenant1, sign: -1 },
      { meterId: id.tenant2, sign: -1 },
    ];
    expect((await setMembers(id.mall, members)).status).toBe(200);
    const read = await t.call<VirtualMembers>('/meter/members', { id: id.mall }, scoped);
    expect(read.body.data).toEqual({
      virtual: true,
      members: [
        { meterId: id.main, devAddr: expect.any(String), channel: 'activeImport', sign: 1 },
        { meterId: id.tenant1, devAddr: expect.any(String), channel: 'activeImport', sign: -1 },
        { meterId: id.tenant2, devAddr: expect.any(String), channel: 'activeImport', sign: -1 },
      ],
    });

    const refused = async (virtualId: string, list: object[], cookie = admin) => {
      const res = await setMembers(virtualId, list, cookie);
      expect(res.status).toBe(400);
      return fieldIssues(res.body);
    };
    expect(await refused(id.mall, [...members, { meterId: id.mall }])).toEqual([
      ['members.3.meterId', 'virtualContainsItself'],
    ]);
    expect(await refused(id.mall, [...members, { meterId: id.tenant1, sign: 1 }])).toEqual([
      ['members.3.meterId', 'virtualMemberTwice'],
    ]);
    expect(await refused(id.mall, [{ meterId: id.net }])).toEqual([['members.0.meterId', 'virtualMemberVirtual']]);
    expect(await refused(id.main, [{ meterId: id.tenant1 }])).toEqual([['id', 'notVirtualMeter']]);
    expect(await refused(id.mall, [{ meterId: id.theirs }], scoped)).toEqual([['members.0.meterId', 'meterNotFound']]);
    // Nothing half-written: the members stand as saved.
    expect((await t.call<VirtualMembers>('/meter/members', { id: id.mall }, admin)).body.data.members).toHaveLength(3);
    // A member does not turn virtual (that would nest), nor a virtual meter with members real.
    const edit = async (meterId: string, virtual: boolean) => {
      const { devAddr } = (await t.call<{ devAddr: string }>('/meter/detail', { id: meterId }, admin)).body.data;
      return fieldIssues((await t.call('/meter/update', { id: meterId, devAddr, gridId: gridA, virtual }, admin)).body);
    };
    expect(await edit(id.main, true)).toEqual([['virtual', 'virtualMemberVirtual']]);
    expect(await edit(id.mall, false)).toEqual([['virtual', 'virtualHasMembers']]);
    // A member stays while a virtual meter counts it.
    const del = await t.call<{ failures: { key: string }[] }>('/meter/delete', { ids: [id.tenant1] }, admin);
    expect(del.body.data.failures).toEqual([expect.objectContaining({ key: 'meterInVirtualMeter' })]);
  });

  it("reads a shopping mall's main meter minus two tenants per interval; an interval a tenant lacks is a gap", async () => {
    await setMembers(id.mall, [
      { meterId: id.main, sign: 1 },
      { meterId: id.tenant1, sign: -1 },
      { meterId: id.tenant2, sign: -1 },
    ]);
    const p = await profile(id.mall);
    expect(p.rows.map((r) => r.ts)).toEqual([at(DAY, 15), at(DAY, 30), at(DAY, 60)]);
    expect(importAt(p, 15)).toBe(101_000 - 20_300 - 10_200);
    expect(importAt(p, 60)).toBe(104_000 - 21_200 - 10_800);
    expect(p.rows[0]?.values.voltageL1).toBeNull();

    // The load profile detail overlays it like a real meter, from the same intervals (kWh).
    const body = { startDay: DAY, endDay: DAY, meterIds: [id.mall, id.main] };
    const curves = await t.call<{ figures: { intervals: number }; points: { curve: string; activeImport: number }[] }>(
      '/analytics/loadProfileDetail/summary',
      body,
      admin,
    );
    expect(curves.body.data.figures.intervals).toBe(3 + 4);
    const mall = await t.call<{ devAddr: string }>('/meter/detail', { id: id.mall }, admin);
    expect(
      curves.body.data.points.filter((c) => c.curve === mall.body.data.devAddr).map((c) => c.activeImport),
    ).toEqual([70.5, 71, 72]);
  });

  it('reads import minus solar export per interval and per day', async () => {
    await setMembers(id.net, [
      { meterId: id.prosumer, channel: 'activeImport', sign: 1 },
      { meterId: id.prosumer, channel: 'activeExport', sign: -1 },
    ]);
    const p = await profile(id.net);
    expect(p.rows).toHaveLength(4);
    expect(importAt(p, 30)).toBe(51_000 - 7_240);
    const daily = await t.call<MeterFrozen>(
      '/readings/daily',
      { meterId: id.net, startDay: BEFORE, endDay: DAY },
      admin,
    );
    expect(daily.body.data.rows.map((r) => [r.day, r.values.activeImport, r.values.activeImportT1])).toEqual([
      [BEFORE, 50_000 - 7_000, null],
      [DAY, 62_000 - 9_880, null],
    ]);
    expect(await dailyConsumption(t.db, id.net, DAY, DAY)).toEqual([{ day: DAY, consumption: 12_000 - 2_880 }]);
  });

  it("reads the mall's days from its members' frozen registers and rollups; a day a tenant lacks is a gap", async () => {
    await setMembers(id.mall, [
      { meterId: id.main, sign: 1 },
      { meterId: id.tenant1, sign: -1 },
      { meterId: id.tenant2, sign: -1 },
    ]);
    const daily = await t.call<MeterFrozen>(
      '/readings/daily',
      { meterId: id.mall, startDay: BEFORE, endDay: DAY },
      admin,
    );
    expect(daily.body.data.rows.map((r) => [r.day, r.values.activeImport, r.values.activeImportT1])).toEqual([
      [BEFORE, 100_000 - 20_000 - 10_000, 100_000 - 20_000 - 10_000],
    ]);
    // Tenant 2's register closing DAY is missing: the mall's day is unknown, not main less tenant 1.
    expect(await dailyConsumption(t.db, id.mall, DAY, DAY)).toEqual([{ day: DAY, consumption: null }]);
    await setMembers(id.mall, [
      { meterId: id.main, sign: 1 },
      { meterId: id.tenant1, sign: -1 },
    ]);
    // Without tenant 2: main's 24,000 Wh less tenant 1's 7,000; BEFORE has no register before it.
    expect(await dailyConsumption(t.db, id.mall, BEFORE, DAY)).toEqual([
      { day: BEFORE, consumption: null },
      { day: DAY, consumption: 24_000 - 7_000 },
    ]);
    expect(await dailyConsumption(t.db, id.main, DAY, DAY)).toEqual([{ day: DAY, consumption: 24_000 }]);

    // The consumption detail shows its days like a real meter's (kWh), newest first.
    const days = await t.call<{ list: { day: string; consumption: number | null }[] }>(
      '/analytics/consumptionDetail/list',
      { startDay: BEFORE, endDay: DAY, meterId: id.mall },
      admin,
    );
    expect(days.body.data.list.map((r) => [r.day, r.consumption])).toEqual([
      [DAY, 17],
      [BEFORE, null],
    ]);
  });

  it("answers the TOU prices of a meter's tariff for the billing reports, none without a tariff", async () => {
    const { id: tariffId } = await tariffOf(t);
    await t.db.update(tariff).set({ price1: 0.25, price2: 0.1 }).where(eq(tariff.id, tariffId));
    await t.db.update(meter).set({ tariffId }).where(eq(meter.id, id.mall));
    expect(await tariffPrices(t.db, id.mall)).toEqual(expect.objectContaining({ prices: [0.25, 0.1, 0, 0] }));
    expect(await tariffPrices(t.db, id.tenant1)).toBeNull();
  });
});
