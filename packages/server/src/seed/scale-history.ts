import {
  type DeviceEvent,
  type DeviceProfileRow,
  INTERVALS_PER_DAY,
  OBIS,
  REPORTING_METER_STATUSES,
  STANDARD_EVENTS,
} from '@meterdesk/contracts';
import {
  DEFAULT_KNOBS,
  EVENT,
  type MeterModel,
  meterDay,
  meterModel,
  registersOf,
  spontaneousEvents,
} from '@meterdesk/simulator';
import { sql } from 'drizzle-orm';
import type { AtomicWriter } from '../db/bulk-insert';
import type { Db } from '../db/driver';
import {
  clockCheck,
  collectionRun,
  collectionRunDevice,
  collectionRunKpi,
  dcuEvent,
  deviceLink,
  linkChange,
  meterEvent,
  meterLastRead,
  plan,
  planTemplate,
  readingDaily,
  readingMonthly,
  readingProfile,
  rollupMeterDay,
} from '../db/schema';
import { captureTimes, type RunItem } from '../modules/collection/run-items';
import { writeKpiSummaries } from '../modules/collection/run-kpi';
import { keepLatestClock } from '../readings/meter-clock';
import { rollupOnlineHistory } from '../readings/online-rollups';
import { ensurePartitions } from '../readings/partitions';
import { recordPower } from '../readings/power-state';
import { lockRollups, monthsOf, recomputeEventDays, rollupMonths, rollupNodes } from '../readings/rollups';
import {
  dailyRows,
  FROZEN_CHANNELS,
  type MeterEventRow,
  meterEventRows,
  monthlyRows,
  PROFILE_CHANNELS,
  type ProfileRow,
  profileRows,
} from '../readings/rows';
import { seededRandom } from './seeded-random';
import { seededDailyTask } from './seeded-task';

/*
 * The history of a scale run (`npm run seed -- --meters N --days D`): what the readings store and its
 * rollups would hold had the fleet been collected for D days up to now, written straight into the
 * tables by COPY. The values are the simulator's meters' own (the same closed-form energy model and
 * spontaneous events the simulated fleet answers with), through the ingest's row builders; the rollups
 * are what the fold makes of those rows (a test folds a small history again and finds the same rows).
 *
 * What is written, for every meter that reports (status 1–3; half the installed ones never did):
 * - daily frozen registers of each day collected, monthly frozen registers of each month start;
 * - events: the simulator's power outages and cover openings, a power-down and power-up of every meter
 *   of a transformer area whose DCU lost power (an event storm, with the DCU's own events and link
 *   changes), and a clock-invalid event with its clock check each day a drifting clock is beyond 60 s;
 * - link changes: online at the history's start, flapping meters' offline spells, a stopped meter's
 *   last going offline; and each device's current link state (device_link) and supply (device_power,
 *   as the readings writer folds the power events);
 * - the rollups of every meter-day (rollup_meter_day, and from them rollup_grid_day, rollup_dcu_day,
 *   meter_last_read, the month rows), as if every interval collected had been stored; the event rollups
 *   and each meter's latest clock check, from the events and checks written; every device's online time
 *   per day (rollup_online_day and its node and DCU sums), from the link changes written;
 * - a daily collection task over the run's region with one finished run per day, its device rows and
 *   the run KPIs task analysis reads.
 * Raw 15-minute load profile rows are the exception: 96 a meter a day (864 M for 100,000 meters over 90
 * days) would take hours and hundreds of GB. They are written for every meter only on the last
 * `profileDays` days (today counting as one), and for the whole history only for every
 * `profileEvery`-th meter; the rollups still count every interval collected.
 *
 * Collection is imperfect as in the field: 1 % of meter-days (10 % of anomalous meters') are missed
 * whole, 2 % miss a run of up to 16 intervals, some meters stopped communicating during the history,
 * and today holds the intervals due by now.
 */

const DAY_MS = 86_400_000;
const SLOT_MS = DAY_MS / INTERVALS_PER_DAY;
const CLOCK_LIMIT_SEC = DEFAULT_KNOBS.clockLimitSec;
/** Per DCU and day: the chance its transformer area loses power (every meter reports it at once). */
const STORM_PER_DAY = 0.01;
const PROFILE_DEFAULT_DAYS = 2;
const PROFILE_DEFAULT_EVERY = 100;
/** Meters whose history is made and written at a time: their rows stay within a few tens of MB. */
const METERS_AT_ONCE = 500;
const TASK_NAME = 'Scale daily collection';
const RUN_AT_MINUTE = 5;

/** The tables a history writes, for ANALYZE once it is in. */
export const HISTORY_TABLES = [
  'reading_daily',
  'reading_monthly',
  'reading_profile',
  'meter_event',
  'dcu_event',
  'clock_check',
  'link_change',
  'device_link',
  'device_power',
  'rollup_meter_day',
  'rollup_grid_day',
  'rollup_dcu_day',
  'meter_last_read',
  'rollup_meter_event_day',
  'rollup_grid_event_day',
  'rollup_meter_month',
  'rollup_grid_month',
  'meter_clock',
  'rollup_online_day',
  'rollup_online_grid_day',
  'rollup_online_dcu_day',
  'collection_run',
  'collection_run_device',
  'collection_run_kpi',
  'collection_run_code_kpi',
  'collection_run_dcu_kpi',
] as const;

const LEVEL = new Map(STANDARD_EVENTS.map((e) => [e.code, e.level]));
const event = (code: number, ms: number, data?: Record<string, unknown>): DeviceEvent => ({
  code,
  time: new Date(ms).toISOString(),
  level: LEVEL.get(code) ?? 'regular',
  ...(data ? { data } : {}),
});
const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

export interface HistoryOptions {
  /** Whole days before today; today so far is written too. */
  days: number;
  /** Days (today the last) whose load profile rows are written for every meter. */
  profileDays?: number;
  /** Every this-many-th meter has its load profile written for the whole history; 0 for none. */
  profileEvery?: number;
  /** The history ends here (tests); now by default. */
  now?: Date;
}

/** What the history needs of a meter the run added. */
export interface HistoryMeter {
  id: string;
  devAddr: string;
  gridId: string;
  dcuId: string;
  status: number;
  commercial: boolean;
}

/** A transformer area of the run: its grid node and its DCU. */
export interface HistoryArea {
  id: string;
  dcuId: string;
  dcuNo: string;
}

interface Storm {
  down: number;
  /** Null while the power is still off. */
  up: number | null;
}

/** One meter's fate over the history, drawn from its own random sequence. */
interface Fate {
  reporting: boolean;
  /** Never delivered a reading (installed but never communicating, or not in service). */
  silent: boolean;
  /** The first day it delivered nothing more, or null. */
  stoppedDay: number | null;
  missRate: number;
  flapping: boolean;
  clockOffsetSec: number;
  clockDriftSecPerDay: number;
}

/**
 * Writes a run's history: `prepare` before the run's transaction (partitions), `writeMeters` for each
 * batch of meters the run adds, `finish` once they are all written (the rows that sum or follow them).
 */
export class ScaleHistory {
  readonly firstDay: number;
  readonly today: number;
  private readonly now: number;
  private readonly profileFrom: number;
  private readonly profileEvery: number;
  /** ISO texts of interval ends, by (day − firstDay) × 96 + slot: made once, not per meter. */
  private readonly slotTexts: string[];
  private readonly storms = new Map<string, Storm[]>();
  private readonly items: RunItem[] = [
    { cgcode: 'loadProfile', obis: OBIS.loadProfile, kind: 'profile' },
    { cgcode: 'dailyFrozen', obis: OBIS.dailyProfile, kind: 'daily' },
  ];
  private readonly runIds: string[];
  /** Per run: readings expected of each meter, and the totals of its device rows so far. */
  private readonly runs: { expected: number; devices: number; received: number; byCode: Record<string, number> }[];
  /**
   * What task analysis reads of the runs (collection_run_kpi), as a finished run's chain writes it
   * (writeRunKpi; the seeded runs have no repairs): by run, grid node, DCU and result code.
   */
  private readonly kpis = new Map<string, typeof collectionRunKpi.$inferInsert>();
  private readonly dcuNos: Map<string, string>;
  private readonly planId: string;
  private readonly templateId: string;
  private readonly lastRead: { meter_id: string; last_day: string }[] = [];
  private meterIndex = 0;

  constructor(
    private readonly seed: number,
    private readonly areas: readonly HistoryArea[],
    nextId: () => string,
    options: HistoryOptions,
  ) {
    this.now = (options.now ?? new Date()).getTime();
    this.today = Math.floor(this.now / DAY_MS);
    this.firstDay = this.today - options.days;
    this.profileFrom = this.today - (options.profileDays ?? PROFILE_DEFAULT_DAYS) + 1;
    this.profileEvery = options.profileEvery ?? PROFILE_DEFAULT_EVERY;
    this.slotTexts = Array.from({ length: (options.days + 1) * INTERVALS_PER_DAY }, (_, i) =>
      new Date(this.firstDay * DAY_MS + (i + 1) * SLOT_MS).toISOString(),
    );
    this.runIds = Array.from({ length: options.days }, nextId);
    this.runs = this.runIds.map((_, i) => {
      const period = this.runPeriod(i);
      const expected = this.items.reduce(
        (sum, item) => sum + captureTimes(item.kind as 'profile' | 'daily', period).length,
        0,
      );
      return { expected, devices: 0, received: 0, byCode: {} };
    });
    this.dcuNos = new Map(areas.map((a) => [a.id, a.dcuNo]));
    this.planId = nextId();
    this.templateId = nextId();
    const random = seededRandom(seed ^ 0x5bd1e995);
    for (const area of areas) {
      const storms: Storm[] = [];
      for (let day = this.firstDay; day <= this.today; day++) {
        if (random() >= STORM_PER_DAY) continue;
        const down = day * DAY_MS + Math.floor(random() * DAY_MS);
        const up = down + 5 * 60_000 + Math.floor(random() * 2 * 3_600_000);
        if (down < this.now) storms.push({ down, up: up < this.now ? up : null });
      }
      this.storms.set(area.id, storms);
    }
  }

  /** The partitions the history's rows need, made before the run's transaction. */
  prepare(db: Db): Promise<number> {
    const firstMonth = new Date(this.firstDay * DAY_MS);
    firstMonth.setUTCDate(1);
    firstMonth.setUTCMonth(firstMonth.getUTCMonth() - 1);
    return ensurePartitions(db, firstMonth, new Date((this.today + 1) * DAY_MS));
  }

  /**
   * Writes the history of a batch of the run's meters, with what the readings writer keeps beside the
   * rows (the meters' supply from their power events); answers the rows written.
   */
  async writeMeters({ tx, bulk }: AtomicWriter, meters: readonly HistoryMeter[]): Promise<number> {
    let rows = 0;
    for (let from = 0; from < meters.length; from += METERS_AT_ONCE) {
      const out = emptyRows();
      for (const m of meters.slice(from, from + METERS_AT_ONCE)) this.meterHistory(m, this.meterIndex++, out);
      rows += await bulk(readingDaily, out.daily);
      rows += await bulk(readingMonthly, out.monthly);
      rows += await bulk(readingProfile, out.profile);
      rows += await bulk(meterEvent, out.events);
      await recordPower(tx, { meterEvents: out.events });
      rows += await bulk(clockCheck, out.clockChecks);
      await keepLatestClock(tx, out.clockChecks);
      rows += await bulk(linkChange, out.links);
      rows += await bulk(deviceLink, out.deviceLinks);
      rows += await bulk(rollupMeterDay, out.rollups);
      rows += await bulk(collectionRunDevice, out.runDevices);
    }
    return rows;
  }

  /**
   * The rows that follow from every meter's: the DCUs' events and links, the grid and DCU rollups, the
   * event, month and online-time rollups, each meter's last read day, and the collection task with its
   * runs and their KPIs. Answers the rows written.
   */
  async finish(writer: AtomicWriter, regionId: string, run: string, meters: number): Promise<number> {
    const { tx, bulk } = writer;
    let rows = 0;
    const dcuEvents: (typeof dcuEvent.$inferInsert)[] = [];
    const links: (typeof linkChange.$inferInsert)[] = [];
    const deviceLinks: (typeof deviceLink.$inferInsert)[] = [];
    const start = this.firstDay * DAY_MS;
    for (const area of this.areas) {
      const storms = this.storms.get(area.id) ?? [];
      links.push({ deviceId: area.dcuId, deviceKind: 'dcu', ts: new Date(start), online: true });
      for (const storm of storms) {
        dcuEvents.push({ dcuId: area.dcuId, ts: new Date(storm.down), code: EVENT.dcuPowerDown, level: 2, data: null });
        links.push({ deviceId: area.dcuId, deviceKind: 'dcu', ts: new Date(storm.down), online: false });
        if (storm.up === null) continue;
        dcuEvents.push({ dcuId: area.dcuId, ts: new Date(storm.up), code: EVENT.dcuPowerUp, level: 0, data: null });
        links.push({ deviceId: area.dcuId, deviceKind: 'dcu', ts: new Date(storm.up), online: true });
      }
      const last = links.at(-1) as typeof linkChange.$inferInsert;
      deviceLinks.push({
        deviceKind: 'dcu',
        deviceKey: area.dcuNo,
        online: last.online,
        changedAt: last.ts,
        lastSeen: last.online ? new Date(this.now) : last.ts,
      });
    }
    rows += await bulk(dcuEvent, dcuEvents);
    await recordPower(tx, { dcuEvents });
    rows += await bulk(linkChange, links);
    rows += await bulk(deviceLink, deviceLinks);
    // Their meters' rows are there since their insert, empty: the read ones get their day.
    await tx.execute(
      sql`update ${meterLastRead} l set last_day = r.last_day
        from jsonb_to_recordset(${JSON.stringify(this.lastRead)}::jsonb) as r(meter_id varchar, last_day date)
        where l.meter_id = r.meter_id`,
    );
    rows += this.lastRead.length;

    const days = Array.from({ length: this.today - this.firstDay + 1 }, (_, i) => isoDay(this.firstDay + i));
    await lockRollups(tx);
    await rollupNodes(tx, {
      gridIds: this.areas.map((a) => a.id),
      dcuIds: this.areas.map((a) => a.dcuId),
      days,
    });
    // What the fold makes of the events, the months and the link changes written above: rollupDay's
    // event and month statements over whole days, and each device's online days from its changes.
    for (const day of days) await recomputeEventDays(tx, day);
    await rollupMonths(tx, [...new Set(days.flatMap(monthsOf))]);
    rows += await rollupOnlineHistory(
      writer,
      this.areas.map((a) => a.id),
      days,
    );

    const orders = this.items.map((item) => ({ cgcode: item.cgcode, cmd: 'collect', params: {}, isCyclePlan: false }));
    // Plain inserts: COPY's text would write the orders (an array) as a PostgreSQL array, not JSON.
    await tx.insert(planTemplate).values([
      {
        id: this.templateId,
        templateName: `${TASK_NAME} ${run}`,
        orders,
        devParams: {},
        remark: 'npm run seed',
        createdBy: 'admin',
      },
    ]);
    const firstRun = (this.firstDay + 1) * DAY_MS + RUN_AT_MINUTE * 60_000;
    // Disabled: a server left running on the seeded archive would otherwise read 100,000 silent meters each night.
    await tx.insert(plan).values([
      {
        ...seededDailyTask(new Date(firstRun)),
        id: this.planId,
        planName: `${TASK_NAME} ${run}`,
        planTempName: `${TASK_NAME} ${run}`,
        devs: { itemType: 0, devList: [], devParams: { grid_ids: [regionId] } },
        orders,
        deviceCount: meters,
        enabled: false,
        executedCount: this.runIds.length,
        nextRunAt: null,
        templateId: this.templateId,
      },
    ]);
    if (this.runIds.length === 0) return rows;
    await tx.insert(collectionRun).values(
      this.runIds.map((id, i) => {
        const period = this.runPeriod(i);
        const totals = this.runs[i] as (typeof this.runs)[number];
        return {
          id,
          planId: this.planId,
          kind: 'scheduled',
          status: 'finished',
          occurrence: i,
          dueAt: period.to,
          periodFrom: period.from,
          periodTo: period.to,
          items: this.items,
          devices: totals.devices,
          expected: totals.devices * totals.expected,
          received: totals.received,
          byCode: totals.byCode,
          requestedBy: 'admin',
          startedAt: period.to,
          finishedAt: new Date(period.to.getTime() + 20 * 60_000),
          createTime: period.to,
        };
      }),
    );
    rows += this.runIds.length;
    rows += await bulk(collectionRunKpi, [...this.kpis.values()]);
    await writeKpiSummaries(tx, sql`select jsonb_array_elements_text(${JSON.stringify(this.runIds)}::jsonb)`);
    return rows;
  }

  /** Run i's period: the day before its time (00:05 the next day), so its intervals and its daily frozen row. */
  private runPeriod(i: number) {
    const due = (this.firstDay + 1 + i) * DAY_MS + RUN_AT_MINUTE * 60_000;
    return { from: new Date(due - DAY_MS), to: new Date(due) };
  }

  private fate(m: HistoryMeter, random: () => number): Fate {
    const reporting = (REPORTING_METER_STATUSES as readonly number[]).includes(m.status);
    const anomalous = m.status === 3;
    const silent = !reporting || (m.status === 1 && random() < 0.5);
    const stops = random() < (anomalous ? 0.25 : 0.005);
    const span = this.today - this.firstDay;
    const badClock = random() < 0.02;
    return {
      reporting,
      silent,
      stoppedDay: stops && span > 1 ? this.today - 1 - Math.floor(random() * Math.min(span - 1, 60)) : null,
      missRate: anomalous ? 0.1 : 0.01,
      flapping: random() < 0.05,
      clockOffsetSec: (2 * random() - 1) * 20,
      clockDriftSecPerDay: (2 * random() - 1) * (badClock ? 4 : 0.3),
    };
  }

  private meterHistory(m: HistoryMeter, index: number, out: HistoryRows): void {
    const model = meterModel(this.seed, m.devAddr, m.commercial ? '3P4W' : '1P2W');
    const random = seededRandom(model.key ^ this.seed);
    const fate = this.fate(m, random);
    const dcuNo = this.dcuNos.get(m.gridId) ?? null;
    const runDevice = (i: number, received: number, code: string) => {
      const totals = this.runs[i] as (typeof this.runs)[number];
      totals.devices++;
      totals.received += received;
      totals.byCode[code] = (totals.byCode[code] ?? 0) + 1;
      const key = `${i} ${m.gridId} ${dcuNo} ${code}`;
      let kpi = this.kpis.get(key);
      if (!kpi) {
        kpi = {
          runId: this.runIds[i] as string,
          gridId: m.gridId,
          dcuNo,
          code,
          devices: 0,
          expected: 0,
          received: 0,
          firstReceived: 0,
          failed: 0,
        };
        this.kpis.set(key, kpi);
      }
      kpi.devices++;
      kpi.expected += totals.expected;
      kpi.received += received;
      kpi.firstReceived += received;
      if (received < totals.expected || code !== '00') kpi.failed++;
      out.runDevices.push({
        runId: this.runIds[i] as string,
        meterId: m.id,
        devAddr: m.devAddr,
        dcuId: m.dcuId,
        dcuNo,
        gridId: m.gridId,
        expected: totals.expected,
        received,
        resultCode: code,
        requested: true,
      });
    };
    if (fate.silent) {
      for (let i = 0; i < this.runIds.length; i++) runDevice(i, 0, '90');
      return;
    }
    const alive = (day: number) => fate.stoppedDay === null || day < fate.stoppedDay;
    const withProfile = this.profileEvery > 0 && index % this.profileEvery === 0;
    const events = this.meterEvents(m, model, fate, random);
    const eventsByDay = new Map<number, number[]>();
    for (const e of events) {
      const day = Math.floor(e.ts.getTime() / DAY_MS);
      const counts = eventsByDay.get(day) ?? [0, 0, 0];
      counts[e.level] = (counts[e.level] ?? 0) + 1;
      eventsByDay.set(day, counts);
    }
    out.events.push(...events);
    for (const e of events)
      if (e.code === EVENT.clockInvalid)
        out.clockChecks.push({
          meterId: m.id,
          ts: e.ts,
          deviationSeconds: (e.data as { deviationSec: number }).deviationSec,
        });
    this.meterLinks(m, fate, random, out);

    // Each day from the first of the month before the history: a monthly row's maximum demand is its month's.
    const monthStart = new Date(this.firstDay * DAY_MS);
    monthStart.setUTCDate(1);
    let monthMaxDemand = 0;
    let previousDaily: number | null = null;
    let lastDay: number | null = null;
    const frozen: DeviceProfileRow[] = [];
    const monthly: DeviceProfileRow[] = [];
    const profile: DeviceProfileRow[] = [];
    for (let day = monthStart.getTime() / DAY_MS; day <= this.today; day++) {
      const { start, cumulative } = meterDay(model, day);
      if (new Date(day * DAY_MS).getUTCDate() === 1) {
        if (day > this.firstDay && alive(day) && random() >= fate.missRate)
          monthly.push({
            ts: new Date(day * DAY_MS).toISOString(),
            values: frozenValues(model, start, monthMaxDemand),
          });
        monthMaxDemand = 0;
      }
      let dayMaxDemand = 0;
      for (let k = 0; k < INTERVALS_PER_DAY; k++)
        dayMaxDemand = Math.max(dayMaxDemand, ((cumulative[k + 1] as number) - (cumulative[k] as number)) * 4);
      monthMaxDemand = Math.max(monthMaxDemand, dayMaxDemand);
      if (day < this.firstDay) continue;

      const collected = alive(day) && random() >= fate.missRate;
      const due = day === this.today ? Math.floor((this.now - day * DAY_MS) / SLOT_MS) : INTERVALS_PER_DAY;
      let gapFrom = due;
      let gapTo = due;
      if (collected && random() < 0.02) {
        gapFrom = Math.floor(random() * due);
        gapTo = Math.min(due, gapFrom + 1 + Math.floor(random() * 16));
      }
      let intervals = 0;
      let demandMin: number | null = null;
      let demandMax: number | null = null;
      let demandSum = 0;
      const writeProfile = collected && (withProfile || day >= this.profileFrom);
      if (collected) {
        for (let k = 0; k < due; k++) {
          if (k >= gapFrom && k < gapTo) continue;
          const register = start + (cumulative[k + 1] as number);
          const power = ((cumulative[k + 1] as number) - (cumulative[k] as number)) * 4;
          intervals++;
          demandSum += power;
          if (demandMin === null || power < demandMin) demandMin = power;
          if (demandMax === null || power > demandMax) demandMax = power;
          if (writeProfile) {
            const registers = registersOf(model, register);
            profile.push({
              ts: this.slotTexts[(day - this.firstDay) * INTERVALS_PER_DAY + k] as string,
              values: {
                [PROFILE_CHANNELS.activeImport]: register,
                [PROFILE_CHANNELS.reactiveImport]: registers.reactiveImport,
                [PROFILE_CHANNELS.activePower]: power,
              },
            });
          }
        }
      }
      // The daily row of a day closes at its end: captured at the next midnight, read on the next day.
      const daily = collected && day < this.today ? start + (cumulative[INTERVALS_PER_DAY] as number) : null;
      if (daily !== null)
        frozen.push({
          ts: new Date((day + 1) * DAY_MS).toISOString(),
          values: frozenValues(model, daily, dayMaxDemand),
        });
      const counts = eventsByDay.get(day);
      if (intervals > 0 || counts || daily !== null || previousDaily !== null) {
        out.rollups.push({
          meterId: m.id,
          day: isoDay(day),
          gridId: m.gridId,
          dcuId: m.dcuId,
          consumption: daily !== null && previousDaily !== null ? daily - previousDaily : null,
          intervals,
          reporting: fate.reporting,
          demandMin,
          demandMax,
          demandAvg: intervals ? Math.round(demandSum / intervals) : null,
          eventsRegular: counts?.[0] ?? 0,
          eventsMedium: counts?.[1] ?? 0,
          eventsSevere: counts?.[2] ?? 0,
          updatedAt: new Date(this.now),
        });
      }
      if (intervals > 0) lastDay = day;
      previousDaily = daily;
      const run = day - this.firstDay;
      if (run < this.runIds.length)
        runDevice(run, intervals + (daily === null ? 0 : 1), collected ? '00' : alive(day) ? '99' : '90');
    }
    out.daily.push(...dailyRows(m.id, frozen));
    out.monthly.push(...monthlyRows(m.id, monthly));
    out.profile.push(...profileRows(m.id, profile));
    if (lastDay !== null) this.lastRead.push({ meter_id: m.id, last_day: isoDay(lastDay) });
  }

  /**
   * The meter's events in time order: the simulator's own outages and cover openings, its area's
   * storms, and a clock-invalid event (with its clock check) each day its clock is beyond the limit;
   * none after it stopped.
   */
  private meterEvents(m: HistoryMeter, model: MeterModel, fate: Fate, random: () => number): MeterEventRow[] {
    const start = this.firstDay * DAY_MS;
    const end = fate.stoppedDay === null ? this.now : fate.stoppedDay * DAY_MS;
    const events = spontaneousEvents(this.seed, model.key, 'meter', start, end - 1, DEFAULT_KNOBS);
    for (const storm of this.storms.get(m.gridId) ?? []) {
      if (storm.down >= end) continue;
      const down = storm.down + Math.floor(random() * 5000);
      if (down < end) events.push(event(EVENT.powerDown, down));
      const up = storm.up === null ? null : storm.up + Math.floor(random() * 5000);
      if (up !== null && up < end) events.push(event(EVENT.powerUp, up));
    }
    for (let day = this.firstDay; day * DAY_MS < end; day++) {
      const at = day * DAY_MS + Math.floor(random() * DAY_MS);
      const deviation = Math.round(fate.clockOffsetSec + (fate.clockDriftSecPerDay * (at - start)) / DAY_MS);
      if (Math.abs(deviation) > CLOCK_LIMIT_SEC && at < end)
        events.push(event(EVENT.clockInvalid, at, { deviationSec: deviation }));
    }
    events.sort((a, b) => a.time.localeCompare(b.time));
    return meterEventRows(m.id, events);
  }

  private meterLinks(m: HistoryMeter, fate: Fate, random: () => number, out: HistoryRows): void {
    const links: (typeof linkChange.$inferInsert)[] = [];
    const change = (ms: number, online: boolean) =>
      links.push({ deviceId: m.id, deviceKind: 'meter', ts: new Date(ms), online });
    let at = this.firstDay * DAY_MS + Math.floor(random() * 3_600_000);
    change(at, true);
    const end = fate.stoppedDay === null ? this.now : fate.stoppedDay * DAY_MS;
    if (fate.flapping) {
      for (let day = this.firstDay; day * DAY_MS < end; day++) {
        if (random() >= 0.15) continue;
        const down = Math.max(at + 1000, day * DAY_MS + Math.floor(random() * DAY_MS));
        const up = down + 5 * 60_000 + Math.floor(random() * 3 * 3_600_000);
        if (up >= end) break;
        change(down, false);
        change(up, true);
        at = up;
      }
    }
    if (fate.stoppedDay !== null) change(Math.max(at + 1000, end + Math.floor(random() * 1_800_000)), false);
    const last = links.at(-1) as typeof linkChange.$inferInsert;
    out.links.push(...links);
    out.deviceLinks.push({
      deviceKind: 'meter',
      deviceKey: m.devAddr,
      online: last.online,
      changedAt: last.ts,
      lastSeen: last.online ? new Date(this.now) : last.ts,
    });
  }
}

/** A frozen row's values as a meter answers them (the registers at the freezing instant, the period's maximum demand). */
function frozenValues(model: MeterModel, total: number, maxDemand: number): Record<string, number> {
  const r = registersOf(model, total);
  return {
    [FROZEN_CHANNELS.activeImport]: r.activeImport,
    [FROZEN_CHANNELS.activeImportT1]: r.rates[0],
    [FROZEN_CHANNELS.activeImportT2]: r.rates[1],
    [FROZEN_CHANNELS.activeImportT3]: r.rates[2],
    [FROZEN_CHANNELS.activeImportT4]: r.rates[3],
    [FROZEN_CHANNELS.activeExport]: r.activeExport,
    [FROZEN_CHANNELS.reactiveImport]: r.reactiveImport,
    [FROZEN_CHANNELS.reactiveExport]: r.reactiveExport,
    [FROZEN_CHANNELS.maxDemand]: maxDemand,
  };
}

interface HistoryRows {
  daily: ReturnType<typeof dailyRows>;
  monthly: ReturnType<typeof monthlyRows>;
  profile: ProfileRow[];
  events: MeterEventRow[];
  clockChecks: (typeof clockCheck.$inferInsert)[];
  links: (typeof linkChange.$inferInsert)[];
  deviceLinks: (typeof deviceLink.$inferInsert)[];
  rollups: (typeof rollupMeterDay.$inferInsert)[];
  runDevices: (typeof collectionRunDevice.$inferInsert)[];
}

const emptyRows = (): HistoryRows => ({
  daily: [],
  monthly: [],
  profile: [],
  events: [],
  clockChecks: [],
  links: [],
  deviceLinks: [],
  rollups: [],
  runDevices: [],
});

export const HISTORY_DEFAULTS = { profileDays: PROFILE_DEFAULT_DAYS, profileEvery: PROFILE_DEFAULT_EVERY };
