import { Writable } from 'node:stream';
import { type DeviceProfileRow, deviceTopic, OBIS } from '@meterdesk/contracts';
import { eq, sql } from 'drizzle-orm';
import mqtt from 'mqtt';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../db/ids';
import { rowsOf } from '../db/rows';
import { clockCheck, dcu, deviceLink, linkChange, meter, meterEvent, readingDaily, readingProfile } from '../db/schema';
import { createLogger } from '../logger';
import { gridNode, meterAt } from '../test/archive-fixtures';
import { createTestApp, type TestApp } from '../test/harness';
import { runJob } from '../test/jobs';
import { scriptedDevice } from '../test/scripted-device';
import { ReadingIngest } from './ingest';
import { ensurePartitions, partitionName } from './partitions';
import { partitionEnd, READINGS_RETENTION_JOB, retentionCutoff } from './retention';
import { profileRows } from './rows';
import { ReadingWriter } from './writer';

const DAY_MS = 86_400_000;
const INTERVAL_MS = 15 * 60_000;
const onPostgres = !!process.env.TEST_DATABASE_URL;

let t: TestApp;
let gridId: string;
const lines: string[] = [];
const capture = new Writable({
  write(chunk, _encoding, done) {
    lines.push(String(chunk));
    done();
  },
});

beforeAll(async () => {
  t = await createTestApp({}, { headEnd: true, logger: createLogger('info', capture) });
  gridId = await gridNode(t);
});
afterAll(() => t?.close());

const ingest = () => t.app.readingIngest;
const yesterday = () => Math.floor(Date.now() / DAY_MS) * DAY_MS - DAY_MS;
/** A day's 96 intervals of a meter, as a load profile read answers them. */
const intervals = (meterId: string, from: number, count: number) =>
  profileRows(
    meterId,
    Array.from({ length: count }, (_, i): DeviceProfileRow => {
      const ts = from + (i + 1) * INTERVAL_MS;
      return { ts: new Date(ts).toISOString(), values: { [OBIS.activeImport]: 1000 + i, [OBIS.activePower]: 400 } };
    }),
  );
const profileCount = async (meterId: string) =>
  (await t.db.select().from(readingProfile).where(eq(readingProfile.meterId, meterId))).length;

async function dcuWithMeters(count: number) {
  const id = newId();
  const dcuNo = `D${newId().slice(0, 10)}`.toUpperCase();
  await t.db.insert(dcu).values({ id, dcuNo, gridId });
  const meters = [];
  for (let i = 0; i < count; i++) {
    const m = await meterAt(t, gridId);
    await t.db.update(meter).set({ dcuId: id }).where(eq(meter.id, m.id));
    meters.push(m);
  }
  return { id, dcuNo, meters };
}

describe('readings ingest', () => {
  it('stores the same batch pushed twice once, and a re-read overlapping a push once', async () => {
    const m = await meterAt(t, gridId);
    const before = { ...ingest().counters };
    const batch = { profile: intervals(m.id, yesterday(), 48) };
    expect(await ingest().push(batch)).toEqual({ accepted: 48, rejected: 0 });
    expect(await ingest().push(batch)).toEqual({ accepted: 48, rejected: 0 });
    expect(await profileCount(m.id)).toBe(48);
    // The day read again in full: only its second half is new.
    await ingest().push({ profile: intervals(m.id, yesterday(), 96) });
    expect(await profileCount(m.id)).toBe(96);
    expect(ingest().counters.stored - before.stored).toBe(96);
    expect(ingest().counters.duplicate - before.duplicate).toBe(96);
  });

  it('refuses rows at impossible times (beyond now + 1 day, before the retention window) and malformed rows, keeping the good ones', async () => {
    const m = await meterAt(t, gridId);
    const before = structuredClone(ingest().counters.rejected);
    const good = intervals(m.id, yesterday(), 2);
    const future = intervals(m.id, Date.now() + 2 * DAY_MS, 1);
    const ancient = intervals(
      m.id,
      retentionCutoff(new Date(), t.config.readingsRetentionMonths).getTime() - DAY_MS,
      1,
    );
    const tooBig = { ...intervals(m.id, yesterday() + DAY_MS / 2, 1)[0], activePower: 2 ** 40 };
    const result = await ingest().push({
      profile: [...good, ...future, ...ancient, tooBig as never, { meterId: m.id, ts: new Date(Number.NaN) }],
      meterEvents: [{ meterId: m.id, ts: new Date(yesterday()), code: 1, level: 9 as never, data: { bad: '\u0000' } }],
    });
    expect(result).toEqual({ accepted: 2, rejected: 5 });
    expect(await profileCount(m.id)).toBe(2);
    expect(ingest().counters.rejected.impossibleTime - before.impossibleTime).toBe(2);
    expect(ingest().counters.rejected.malformed - before.malformed).toBe(3);
  });

  it('takes what a DCU pushes on the broker: its meters’ frozen values land, unknown and foreign meters and bad readings are counted and dropped', async () => {
    const site = await dcuWithMeters(2);
    const other = await dcuWithMeters(1);
    const [first, second] = site.meters as [{ id: string; devAddr: string }, { id: string; devAddr: string }];
    const midnight = new Date(yesterday() + DAY_MS).toISOString();
    const before = structuredClone(ingest().counters.rejected);
    const frozen = (devAddr: string) => [
      { meter: devAddr, obis: OBIS.activeImport, ts: midnight, value: 123_456 },
      { meter: devAddr, obis: '1-0:1.8.1.255', ts: midnight, value: 100_000 },
      { meter: devAddr, obis: OBIS.maxDemand, ts: midnight, value: 5200 },
    ];
    await t.broker.publish(deviceTopic('dcu', site.dcuNo, 'data'), [
      ...frozen(first.devAddr),
      ...frozen(second.devAddr.toLowerCase()),
      ...frozen('NO-SUCH-METER'),
      ...frozen(other.meters[0]?.devAddr ?? ''),
      { meter: first.devAddr, obis: '9-9:9.9.9.255', ts: midnight, value: 1 },
      { meter: first.devAddr, obis: OBIS.activeImport, ts: 'yesterday', value: 1 },
      { meter: first.devAddr },
      {
        meter: first.devAddr,
        obis: OBIS.loadProfile,
        ts: midnight,
        value: [{ ts: new Date(yesterday() + INTERVAL_MS).toISOString(), values: { [OBIS.activeImport]: 9 } }],
      },
    ]);
    await expect
      .poll(() => t.db.select().from(readingDaily).where(eq(readingDaily.meterId, second.id)), { timeout: 20_000 })
      .toHaveLength(1);
    const [row] = await t.db.select().from(readingDaily).where(eq(readingDaily.meterId, first.id));
    expect(row).toMatchObject({
      day: new Date(yesterday()).toISOString().slice(0, 10),
      activeImport: 123_456,
      activeImportT1: 100_000,
      maxDemand: 5200,
    });
    expect(await profileCount(first.id)).toBe(1);
    expect(
      await t.db
        .select()
        .from(readingDaily)
        .where(eq(readingDaily.meterId, other.meters[0]?.id ?? '')),
    ).toEqual([]);
    expect(ingest().counters.rejected.unknownMeter - before.unknownMeter).toBe(6);
    expect(ingest().counters.rejected.malformed - before.malformed).toBe(3);

    await t.broker.publish(deviceTopic('dcu', site.dcuNo, 'data'), { not: 'a list' });
    await expect.poll(() => ingest().counters.rejected.malformed - before.malformed, { timeout: 20_000 }).toBe(4);
    expect(lines.some((l) => l.includes('readings: rows refused') && l.includes('unknownMeter'))).toBe(true);
  });

  it('stores meter and DCU events with their level, a clock check for a clock-invalid event, and status changes', async () => {
    const site = await dcuWithMeters(1);
    const m = site.meters[0] as { id: string; devAddr: string };
    const at = new Date(Date.now() - 60_000).toISOString();
    await t.broker.publish(deviceTopic('meter', m.devAddr, 'event'), {
      code: 6,
      time: at,
      level: 'medium',
      data: { deviationSec: -42 },
    });
    await t.broker.publish(deviceTopic('dcu', site.dcuNo, 'event'), { code: 80, time: at, level: 'severe' });
    await t.broker.publish(deviceTopic('meter', m.devAddr, 'event'), { code: 'six' });
    await expect
      .poll(() => t.db.select().from(clockCheck).where(eq(clockCheck.meterId, m.id)), { timeout: 20_000 })
      .toEqual([{ meterId: m.id, ts: new Date(at), deviationSeconds: -42 }]);
    expect(await t.db.select().from(meterEvent).where(eq(meterEvent.meterId, m.id))).toMatchObject([
      { code: 6, level: 1 },
    ]);
    await expect
      .poll(() => rowsOf(t.db, sql`select code, level from dcu_event where dcu_id = ${site.id}`).then((r) => r.length))
      .toBe(1);

    const device = await scriptedDevice(t.broker, 'dcu', site.dcuNo);
    await device.setOnline(true);
    await expect
      .poll(() => t.db.select().from(linkChange).where(eq(linkChange.deviceId, site.id)), { timeout: 20_000 })
      .toMatchObject([{ deviceKind: 'dcu', online: true }]);
    // The same status again is no change (once the head-end has seen it, the next message goes).
    const seen = async () =>
      (await t.db.select().from(deviceLink).where(eq(deviceLink.deviceKey, site.dcuNo)))[0]?.lastSeen.getTime() ?? 0;
    const first = await seen();
    await device.setOnline(true);
    await expect.poll(seen, { timeout: 20_000 }).toBeGreaterThan(first);
    await device.setOnline(false);
    await expect
      .poll(() => t.db.select().from(linkChange).where(eq(linkChange.deviceId, site.id)), { timeout: 20_000 })
      .toHaveLength(2);
    await device.stop();
  });

  it.runIf(onPostgres)(
    'makes a push wait while the database holds its writes back, keeping pending rows under the cap',
    async () => {
      const m = await meterAt(t, gridId);
      const pipeline = new ReadingIngest(new ReadingWriter(t.database), t.app.http.log, {
        flushRows: 50,
        flushMs: 10,
        maxPending: 60,
      });
      const holder = new pg.Client({ connectionString: (t.database.connection as { url: string }).url });
      await holder.connect();
      await holder.query('begin');
      await holder.query('lock table reading_profile');
      const settled: number[] = [];
      const pushes = [0, 1, 2, 3, 4].map((n) =>
        pipeline.push({ profile: intervals(m.id, yesterday() + n * 24 * INTERVAL_MS, 24) }).then(() => settled.push(n)),
      );
      await expect.poll(() => pipeline.pending, { timeout: 20_000 }).toBeGreaterThan(0);
      const peak: number[] = [];
      for (let i = 0; i < 10; i++) {
        peak.push(pipeline.pending);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(settled).toEqual([]);
      expect(Math.max(...peak)).toBeLessThanOrEqual(60);
      await holder.query('rollback');
      await holder.end();
      await Promise.all(pushes);
      expect(settled).toHaveLength(5);
      expect(pipeline.pending).toBe(0);
      await pipeline.stop();
      expect(await profileCount(m.id)).toBe(120);
    },
    60_000,
  );
});

describe('readings retention', () => {
  it('keeps whole calendar months back from now, the day clamped to a shorter month', () => {
    expect(retentionCutoff(new Date('2026-03-31T10:00:00Z'), 1).toISOString()).toBe('2026-02-28T10:00:00.000Z');
    expect(retentionCutoff(new Date('2026-11-25T00:00:00Z'), 36).toISOString()).toBe('2023-11-25T00:00:00.000Z');
    expect(partitionEnd('reading_profile', 'reading_profile_p202312')?.toISOString()).toBe('2024-01-01T00:00:00.000Z');
    expect(partitionEnd('reading_monthly', 'reading_monthly_p2023')?.toISOString()).toBe('2024-01-01T00:00:00.000Z');
    expect(partitionEnd('reading_profile', 'reading_profile_default')).toBeNull();
  });

  it('drops whole partitions older than the window and keeps the current ones', async () => {
    const old = new Date(Date.UTC(2001, 4, 10));
    await ensurePartitions(t.db, old, old);
    const name = partitionName('reading_profile', new Date(Date.UTC(2001, 4, 1)));
    const exists = async (relation: string) =>
      (await rowsOf<{ found: boolean }>(t.db, sql`select to_regclass(${relation}) is not null as found`))[0]?.found;
    expect(await exists(name)).toBe(true);
    const job = await runJob(t, READINGS_RETENTION_JOB);
    expect((job.output as { dropped: string[] }).dropped).toContain(name);
    expect(await exists(name)).toBe(false);
    const now = new Date();
    expect(
      await exists(partitionName('reading_profile', new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)))),
    ).toBe(true);
  });
});

describe('readings from a device on the broker’s TCP listener', () => {
  let d: TestApp;
  beforeAll(async () => {
    d = await createTestApp({}, { headEnd: true, deviceListener: true });
  });
  afterAll(() => d?.close());

  it('a DCU logged in with its password publishes its meter’s load profile and frozen values; they land once, stored before the acknowledgement', async () => {
    const grid = await gridNode(d);
    const dcuId = newId();
    const dcuNo = `D${newId().slice(0, 10)}`.toUpperCase();
    await d.db.insert(dcu).values({ id: dcuId, dcuNo, gridId: grid });
    const m = await meterAt(d, grid);
    await d.db.update(meter).set({ dcuId }).where(eq(meter.id, m.id));
    const device = await mqtt.connectAsync(`mqtt://127.0.0.1:${d.broker.tcpPort}`, {
      protocolVersion: 4,
      reconnectPeriod: 0,
      username: `dcu:${dcuNo}`,
      password: await d.app.deviceCredentials.ensure('dcu', dcuNo),
    });
    const midnight = new Date(yesterday() + DAY_MS).toISOString();
    const message = JSON.stringify([
      {
        meter: m.devAddr,
        obis: OBIS.loadProfile,
        ts: midnight,
        value: Array.from({ length: 96 }, (_, i) => ({
          ts: new Date(yesterday() + (i + 1) * INTERVAL_MS).toISOString(),
          values: { [OBIS.activeImport]: 1000 + i },
        })),
      },
      { meter: m.devAddr, obis: OBIS.activeImport, ts: midnight, value: 1095 },
    ]);
    // The PUBACK means stored: a server that stopped after it would have lost what the device let go of.
    await device.publishAsync(deviceTopic('dcu', dcuNo, 'data'), message, { qos: 1 });
    expect((await d.db.select().from(readingProfile).where(eq(readingProfile.meterId, m.id))).length).toBe(96);
    await device.publishAsync(deviceTopic('dcu', dcuNo, 'data'), message, { qos: 1 });
    expect(d.app.readingIngest.counters.stored + d.app.readingIngest.counters.duplicate).toBe(2 * 97);
    expect((await d.db.select().from(readingProfile).where(eq(readingProfile.meterId, m.id))).length).toBe(96);
    expect(await d.db.select().from(readingDaily).where(eq(readingDaily.meterId, m.id))).toMatchObject([
      { activeImport: 1095 },
    ]);
    await device.endAsync();
  });
});
