import { METER_STATUS_TRANSITIONS, type MeterStatus, type MeterStatusChange } from '@meterdesk/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../crypto/secret-box';
import { meter, powerGrid } from '../db/schema';
import { createTestApp, type TestApp } from '../test/harness';
import { seedDemoArchive } from './demo-archive';

let t: TestApp;
let admin: string;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.loginAdmin();
  // The test template holds the demo grid alone; the demo archive brings its own.
  await t.db.transaction(async (tx) => {
    await tx.delete(powerGrid);
    await seedDemoArchive(tx, new SecretBox(t.secretKey));
  });
});
afterAll(() => t?.close());

describe('demo archive status history', () => {
  it('gives a demo meter out of the warehouse the history meter/maintain would have written to reach its status', async () => {
    const meters = await t.db.select({ id: meter.id, status: meter.status, remark: meter.remark }).from(meter);
    const inMaintenance = meters.find((m) => m.status === 5);
    expect(inMaintenance).toBeDefined();
    // One meter of each status the demo seeds.
    const oneEach = [...new Map(meters.map((m) => [m.status, m])).values()];
    expect(oneEach.map((m) => m.status).sort()).toEqual([0, 1, 2, 3, 5]);
    for (const m of oneEach) {
      const res = await t.call<MeterStatusChange[]>('/meter/history', { id: m.id }, admin);
      const oldestFirst = [...res.body.data].reverse();
      if (m.status === 0) {
        expect(oldestFirst, m.id).toEqual([]);
        continue;
      }
      // A chain from the warehouse to the meter's status, each step one the life cycle allows.
      expect(oldestFirst[0]?.fromStatus, m.id).toBe(0);
      expect(oldestFirst.at(-1)?.toStatus, m.id).toBe(m.status);
      for (const [k, step] of oldestFirst.entries()) {
        if (k > 0) expect(step.fromStatus).toBe(oldestFirst[k - 1]?.toStatus);
        expect(METER_STATUS_TRANSITIONS[step.fromStatus as MeterStatus]).toContain(step.toStatus);
        expect(Date.parse(step.time)).toBeLessThan(Date.now());
      }
    }
    const history = await t.call<MeterStatusChange[]>('/meter/history', { id: inMaintenance?.id }, admin);
    expect(history.body.data.map((h) => [h.fromStatus, h.toStatus, h.reason, h.username])).toEqual([
      [2, 5, inMaintenance?.remark, 'admin'],
      [1, 2, '', 'admin'],
      [0, 1, '', 'admin'],
    ]);
  }, 120_000);
});
