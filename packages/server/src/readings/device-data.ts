import {
  DeviceEventSchema,
  type DeviceKind,
  type DeviceProfileRow,
  DeviceReadingSchema,
  OBIS,
  parseDeviceTopic,
} from '@meterdesk/contracts';
import { inArray, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import type { Db } from '../db/driver';
import { dcu, meter } from '../db/schema';
import type { CommandRow, HeadEnd, LinkChange } from '../headend/head-end';
import type { Broker } from '../mqtt/broker';
import { type ReadingIngest, refusedForGood } from './ingest';
import { clockSetCheck } from './meter-clock';
import {
  dailyRows,
  FROZEN_CHANNELS,
  levelOf,
  meterEventRows,
  monthlyRows,
  PROFILE_CHANNELS,
  profileRows,
  type ReadingBatch,
} from './rows';

/** The standard event log's "clock invalid" (contracts' STANDARD_EVENTS): it carries the deviation. */
export const CLOCK_INVALID_EVENT = 6;

const DAY_MS = 86_400_000;
const INTERVAL_MS = 15 * 60_000;
/** How long a device key's archive id is trusted; an unknown key is asked again sooner. */
const KNOWN_TTL_MS = 5 * 60_000;
const UNKNOWN_TTL_MS = 10_000;

const FROZEN_OBIS = new Set<string>(Object.values(FROZEN_CHANNELS));
const PROFILE_OBIS = new Set<string>(Object.values(PROFILE_CHANNELS));

/** A profile read by range (class 7) pushed whole: the OBIS of the profile and its rows as value. */
const PROFILE_PUSHES = new Set<string>([OBIS.loadProfile, OBIS.dailyProfile, OBIS.monthlyBilling]);

interface MeterKey {
  id: string;
  dcuId: string | null;
}

/** Archive ids by device key (lower case, as the archive's unique indexes compare), kept a while. */
class KeyCache<T> {
  private readonly entries = new Map<string, { value: T | null; until: number }>();

  constructor(private readonly read: (keys: string[]) => Promise<Map<string, T>>) {}

  async resolve(keys: Iterable<string>): Promise<Map<string, T | null>> {
    const now = Date.now();
    const out = new Map<string, T | null>();
    const missing: string[] = [];
    for (const key of new Set([...keys].map((k) => k.toLowerCase()))) {
      const hit = this.entries.get(key);
      if (hit && hit.until > now) out.set(key, hit.value);
      else missing.push(key);
    }
    if (missing.length) {
      const found = await this.read(missing);
      for (const key of missing) {
        const value = found.get(key) ?? null;
        this.entries.set(key, { value, until: now + (value ? KNOWN_TTL_MS : UNKNOWN_TTL_MS) });
        out.set(key, value);
      }
    }
    return out;
  }
}

/** Runs work one piece at a time in arrival order, each after the event loop has handled its I/O. */
class OneAtATime {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.tail.then(() => new Promise((resolve) => setImmediate(resolve))).then(work);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

const PushedReadingsSchema = z.array(z.unknown()).max(100_000);

/**
 * The broker side of the readings ingest: what devices push on `ami/{kind}/{key}/data` and `…/event`,
 * the status changes the head-end records and the clock syncs meters confirm, mapped from device keys to archive ids and pushed
 * into the ingest. A DCU speaks for the meters behind it only: a reading it names for another meter
 * counts as an unknown meter, like a key no archive holds. Each delivery is held until its rows are
 * durable, so a database that falls behind slows the devices down instead of filling memory; on the
 * embedded broker a device's QoS 1 message is acknowledged only then, so none is lost to a stop in
 * between (an external broker's subscription is QoS 0: there the device's acknowledgement is the broker's).
 */
export class DeviceReadings {
  private readonly stops: (() => Promise<void> | void)[] = [];
  private readonly handling = new Set<Promise<unknown>>();
  private readonly meters: KeyCache<MeterKey>;
  private readonly dcus: KeyCache<string>;
  private readonly parsing = new OneAtATime();

  constructor(
    db: Db,
    private readonly broker: Broker,
    private readonly ingest: ReadingIngest,
    private readonly headEnd: HeadEnd,
    private readonly log: FastifyBaseLogger,
  ) {
    this.meters = new KeyCache(async (keys) => {
      const rows = await db
        .select({ key: sql<string>`lower(${meter.devAddr})`, id: meter.id, dcuId: meter.dcuId })
        .from(meter)
        .where(inArray(sql`lower(${meter.devAddr})`, keys));
      return new Map(rows.map((r) => [r.key, { id: r.id, dcuId: r.dcuId }]));
    });
    this.dcus = new KeyCache(async (keys) => {
      const rows = await db
        .select({ key: sql<string>`lower(${dcu.dcuNo})`, id: dcu.id })
        .from(dcu)
        .where(inArray(sql`lower(${dcu.dcuNo})`, keys));
      return new Map(rows.map((r) => [r.key, r.id]));
    });
  }

  async start(): Promise<void> {
    if (this.stops.length) return;
    this.stops.push(
      await this.broker.subscribe('ami/+/+/data', (topic, payload) => this.handle(this.onData(topic, payload)), {
        acknowledgeWhenHandled: true,
      }),
      await this.broker.subscribe('ami/+/+/event', (topic, payload) => this.handle(this.onEvent(topic, payload)), {
        acknowledgeWhenHandled: true,
      }),
      this.headEnd.onLinkChange((change) => void this.handle(this.onLinkChange(change)).catch(() => undefined)),
      this.headEnd.onDone((row) => void this.handle(this.onCommandDone(row)).catch(() => undefined)),
    );
  }

  /** Stops listening and waits for the messages being handled: after it, the ingest may stop. */
  async stop(): Promise<void> {
    for (const stop of this.stops.splice(0)) await stop();
    await Promise.allSettled([...this.handling]);
  }

  /**
   * Tracks a message's handling and logs its failure. What answers the broker rejects only when the
   * rows could not be stored for a passing reason (the database away, the server stopping): the
   * device then keeps the message and sends it again. Rows the database refuses for good are
   * acknowledged and dropped, or the device would send them forever.
   */
  private handle(work: Promise<unknown>): Promise<unknown> {
    const answered = work.catch((err: unknown) => {
      this.log.error({ err }, 'readings: device message not ingested');
      if (!refusedForGood(err)) throw err;
    });
    const guarded = answered.catch(() => undefined);
    this.handling.add(guarded);
    void guarded.finally(() => this.handling.delete(guarded));
    return answered;
  }

  /**
   * Parses one data message at a time, each after the event loop has had a turn: messages that
   * arrive together (the broker acknowledges and hands them on at once) would otherwise be parsed all
   * in one go, and the flushes of the first ones would wait for the parsing of the last.
   */
  private async onData(topic: string, payload: Buffer): Promise<void> {
    const batch = await this.parsing.run(async () => {
      await this.ingest.whenRoom();
      return this.dataBatch(topic, payload);
    });
    if (batch) await this.ingest.push(batch);
  }

  /** A data message's readings as rows of the meters the sender speaks for; what is refused is counted. */
  private async dataBatch(topic: string, payload: Buffer): Promise<ReadingBatch | null> {
    const device = parseDeviceTopic(topic);
    const list = device ? PushedReadingsSchema.safeParse(parseJson(payload)) : null;
    if (!device || !list?.success) {
      this.ingest.reject('malformed', 1, { topic });
      return null;
    }
    let malformed = 0;
    const byMeter = new Map<string, z.infer<typeof DeviceReadingSchema>[]>();
    for (const item of list.data) {
      const reading = DeviceReadingSchema.safeParse(item);
      if (!reading.success) {
        malformed++;
        continue;
      }
      const key = reading.data.meter.toLowerCase();
      byMeter.set(key, [...(byMeter.get(key) ?? []), reading.data]);
    }
    this.ingest.reject('malformed', malformed, { topic });
    const sender = await this.sender(device.kind, device.key);
    const ids = await this.meters.resolve(byMeter.keys());
    const batch: Required<Pick<ReadingBatch, 'profile' | 'daily' | 'monthly' | 'meterEvents'>> = {
      profile: [],
      daily: [],
      monthly: [],
      meterEvents: [],
    };
    let unknown = 0;
    for (const [key, readings] of byMeter) {
      const found = ids.get(key);
      const speaksFor = found && (device.kind === 'dcu' ? found.dcuId === sender : key === device.key.toLowerCase());
      if (!found || !speaksFor) {
        unknown += readings.length;
        continue;
      }
      this.ingest.reject('malformed', readingsToRows(found.id, readings, batch), { topic });
    }
    this.ingest.reject('unknownMeter', unknown, { topic });
    return batch;
  }

  private async onEvent(topic: string, payload: Buffer): Promise<void> {
    const device = parseDeviceTopic(topic);
    const event = device ? DeviceEventSchema.safeParse(parseJson(payload)) : null;
    if (!device || !event?.success) return this.ingest.reject('malformed', 1, { topic });
    if (device.kind === 'dcu') {
      const id = (await this.dcus.resolve([device.key])).get(device.key.toLowerCase());
      if (!id) return this.ingest.reject('unknownMeter', 1, { topic });
      const e = event.data;
      await this.ingest.push({
        dcuEvents: [{ dcuId: id, ts: new Date(e.time), code: e.code, level: levelOf(e.level), data: e.data ?? null }],
      });
      return;
    }
    const found = (await this.meters.resolve([device.key])).get(device.key.toLowerCase());
    if (!found) return this.ingest.reject('unknownMeter', 1, { topic });
    const batch: ReadingBatch = { meterEvents: meterEventRows(found.id, [event.data]) };
    const deviation = event.data.data?.deviationSec;
    if (event.data.code === CLOCK_INVALID_EVENT && typeof deviation === 'number')
      batch.clockChecks = [{ meterId: found.id, ts: new Date(event.data.time), deviationSeconds: deviation }];
    await this.ingest.push(batch);
  }

  private async onLinkChange(change: LinkChange): Promise<void> {
    const id =
      change.kind === 'dcu'
        ? (await this.dcus.resolve([change.key])).get(change.key.toLowerCase())
        : (await this.meters.resolve([change.key])).get(change.key.toLowerCase())?.id;
    if (!id) return this.ingest.reject('unknownMeter', 1, { kind: change.kind, key: change.key });
    await this.ingest.push({
      linkChanges: [{ deviceId: id, deviceKind: change.kind, ts: change.at, online: change.online }],
    });
  }

  /** A meter's confirmed clock sync is a clock check: clock monitoring stops showing the deviation it corrected. */
  private async onCommandDone(row: CommandRow): Promise<void> {
    const check = clockSetCheck(row);
    if (check) await this.ingest.push({ clockChecks: [check] });
  }

  /** The archive id of a DCU publishing for its meters; null for a direct meter. */
  private async sender(kind: DeviceKind, key: string): Promise<string | null> {
    if (kind !== 'dcu') return null;
    return (await this.dcus.resolve([key])).get(key.toLowerCase()) ?? null;
  }
}

/**
 * One meter's pushed readings as rows, added to `batch`; answers how many readings were malformed.
 * A profile pushed whole (its OBIS and its rows as value) maps as a read of it does; single registers
 * are grouped by capture time: at a midnight (UTC) they are that midnight's frozen values (a daily
 * row), at another interval end load profile channels; anything else is malformed.
 */
function readingsToRows(
  meterId: string,
  readings: readonly z.infer<typeof DeviceReadingSchema>[],
  batch: Required<Pick<ReadingBatch, 'profile' | 'daily' | 'monthly' | 'meterEvents'>>,
): number {
  let malformed = 0;
  const registers = new Map<string, Record<string, number>>();
  for (const r of readings) {
    if (r.obis === OBIS.eventLog) {
      const events = z.array(DeviceEventSchema).safeParse(r.value);
      if (events.success) batch.meterEvents.push(...meterEventRows(meterId, events.data));
      else malformed++;
      continue;
    }
    if (PROFILE_PUSHES.has(r.obis)) {
      if (!isProfileRows(r.value)) {
        malformed++;
        continue;
      }
      if (r.obis === OBIS.loadProfile) batch.profile.push(...profileRows(meterId, r.value));
      else if (r.obis === OBIS.dailyProfile) batch.daily.push(...dailyRows(meterId, r.value));
      else batch.monthly.push(...monthlyRows(meterId, r.value));
      continue;
    }
    const at = Date.parse(r.ts);
    const midnight = at % DAY_MS === 0;
    const known = midnight ? FROZEN_OBIS.has(r.obis) : at % INTERVAL_MS === 0 && PROFILE_OBIS.has(r.obis);
    if (!Number.isFinite(at) || !known || typeof r.value !== 'number') {
      malformed++;
      continue;
    }
    const ts = new Date(at).toISOString();
    registers.set(ts, { ...registers.get(ts), [r.obis]: r.value });
  }
  for (const [ts, values] of registers) {
    const row = [{ ts, values }];
    if (Date.parse(ts) % DAY_MS === 0) batch.daily.push(...dailyRows(meterId, row));
    else batch.profile.push(...profileRows(meterId, row));
  }
  return malformed;
}

/**
 * DeviceProfileRowSchema's test written out: a pushed profile is the bulk of what arrives (thousands
 * of rows a message), and walking each row through the schema cost more than writing it.
 */
function isProfileRows(value: unknown): value is DeviceProfileRow[] {
  if (!Array.isArray(value)) return false;
  for (const row of value) {
    if (typeof row !== 'object' || row === null || typeof row.ts !== 'string') return false;
    const values = row.values;
    if (typeof values !== 'object' || values === null || Array.isArray(values)) return false;
    for (const key in values) if (typeof values[key] !== 'number') return false;
  }
  return true;
}

function parseJson(payload: Buffer): unknown {
  try {
    return JSON.parse(payload.toString('utf8'));
  } catch {
    return undefined;
  }
}
