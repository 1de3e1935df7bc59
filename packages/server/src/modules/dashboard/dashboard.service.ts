import {
  ALARM_DAYS,
  type AlarmPage,
  type AlarmQuery,
  type AlarmTrend,
  type ArchiveSummary,
  CONSUMER_TYPES,
  type CollectionKpi,
  type ConsumerSummary,
  DEVICE_TYPES,
  type EnergySummary,
  METER_STATUSES,
  type ModuleSummary,
  OPERATION_LOG_ROWS,
  type OperationLog,
  PAYMENT_MODES,
  WORKING_MODES,
} from '@meterdesk/contracts';
import { and, desc, eq, type SQL, sql } from 'drizzle-orm';
import { type ArchiveFacet, archiveCounts, totalOf } from '../../db/archive-counts';
import type { Db } from '../../db/driver';
import { rowsOf } from '../../db/rows';
import { powerGrid, rollupGridDay, sysLog } from '../../db/schema';
import { gridScope, type Scope } from '../../rbac/scope';
import { unacknowledgedSevereCount, unacknowledgedSevereEvents } from '../analytics/meter-event-alarms';
import type { CollectionReportService } from '../collection/collection-report.service';
import { journalScope, toSystemLog } from '../system/syslog.repository';

const DAY_MS = 86_400_000;
const utcDay = (at: Date) => at.toISOString().slice(0, 10);
const addDays = (day: string, days: number) => utcDay(new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS));
/** Every UTC day from `first` to `last`, both included. */
const daysFrom = (first: string, last: string) =>
  Array.from({ length: (Date.parse(last) - Date.parse(first)) / DAY_MS + 1 }, (_, i) => addDays(first, i));

/** What rollup_grid_day holds for a day, summed over the caller's grid nodes. */
interface GridDay {
  day: string;
  consumption: number;
  metersWithConsumption: number;
  regular: number;
  medium: number;
  severe: number;
}

/**
 * The dashboard's cards, each within the caller's grid scope and read from rollups: the grid days
 * (consumption, events), the archive's counts per grid node, the collection report's figures. Days
 * are UTC days, as the readings store files them.
 */
export class DashboardService {
  constructor(
    private readonly db: Db,
    private readonly report: CollectionReportService,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  private today(): string {
    return utcDay(this.clock());
  }

  /** The caller's grid nodes' rollup rows of the days from `first` to `last`, summed per day. */
  private async gridDays(scope: Scope, first: string, last: string): Promise<Map<string, GridDay>> {
    const rows = await rowsOf<GridDay>(
      this.db,
      sql`select r.day::text as day, coalesce(sum(r.consumption), 0)::float8 as consumption,
          coalesce(sum(r.meters_with_consumption), 0)::int as "metersWithConsumption",
          coalesce(sum(r.events_regular), 0)::int as regular, coalesce(sum(r.events_medium), 0)::int as medium,
          coalesce(sum(r.events_severe), 0)::int as severe
        from ${rollupGridDay} r
        where r.day between ${first}::date and ${last}::date and ${this.placed(scope, sql`r.grid_id`)}
        group by r.day`,
    );
    return new Map(rows.map((row) => [row.day, row]));
  }

  private placed(scope: Scope, gridColumn: SQL): SQL {
    return gridScope(scope, gridColumn) ?? sql`true`;
  }

  /**
   * A page of the last ALARM_DAYS days' alarms (severe events nobody has acknowledged), newest first,
   * on their partial index; the total from the event rollups, which count acknowledgements too.
   */
  async alarms(scope: Scope, query: AlarmQuery): Promise<AlarmPage> {
    const first = addDays(this.today(), 1 - ALARM_DAYS);
    const [page, total] = await Promise.all([
      unacknowledgedSevereEvents(this.db, scope, {
        since: new Date(`${first}T00:00:00Z`),
        limit: query.pageSize,
        offset: (query.curPage - 1) * query.pageSize,
      }),
      unacknowledgedSevereCount(this.db, scope, first),
    ]);
    return { ...page, curPage: query.curPage, pageSize: query.pageSize, total };
  }

  async alarmTrend(scope: Scope): Promise<AlarmTrend> {
    const last = this.today();
    const first = addDays(last, 1 - ALARM_DAYS);
    const days = await this.gridDays(scope, first, last);
    return {
      days: daysFrom(first, last).map((day) => {
        const found = days.get(day);
        return { day, regular: found?.regular ?? 0, medium: found?.medium ?? 0, severe: found?.severe ?? 0 };
      }),
    };
  }

  private counts(scope: Scope, facets: readonly ArchiveFacet[]) {
    return archiveCounts(this.db, (grid) => gridScope(scope, grid), facets);
  }

  async archive(scope: Scope): Promise<ArchiveSummary> {
    const [counts, [nodes]] = await Promise.all([
      this.counts(scope, ['meter', 'virtualMeter', 'dcu']),
      this.db.select({ n: sql<number>`count(*)::int` }).from(powerGrid).where(gridScope(scope, powerGrid.id)),
    ]);
    const byStatus = METER_STATUSES.map((status) => ({
      status,
      count: totalOf(counts, 'meter', [String(status)]) + totalOf(counts, 'virtualMeter', [String(status)]),
    }));
    return {
      gridNodes: Number(nodes?.n ?? 0),
      dcus: totalOf(counts, 'dcu'),
      meters: byStatus.reduce((sum, s) => sum + s.count, 0),
      byStatus,
    };
  }

  async consumers(scope: Scope): Promise<ConsumerSummary> {
    const counts = await this.counts(scope, ['consumerType', 'consumerPayment', 'consumerSpecial']);
    return {
      consumers: totalOf(counts, 'consumerType'),
      byType: CONSUMER_TYPES.map((consumerType) => ({
        consumerType,
        count: totalOf(counts, 'consumerType', [consumerType]),
      })),
      byPayment: PAYMENT_MODES.map((paymentMode) => ({
        paymentMode,
        count: totalOf(counts, 'consumerPayment', [paymentMode]),
      })),
      special: totalOf(counts, 'consumerSpecial', ['true']),
    };
  }

  async modules(scope: Scope): Promise<ModuleSummary> {
    const counts = await this.counts(scope, ['moduleType', 'moduleMode']);
    return {
      modules: totalOf(counts, 'moduleType'),
      byDeviceType: DEVICE_TYPES.map((deviceType) => ({
        deviceType,
        count: totalOf(counts, 'moduleType', [String(deviceType)]),
      })).filter((row) => row.count > 0),
      byWorkingMode: WORKING_MODES.map((workingMode) => ({
        workingMode,
        count: totalOf(counts, 'moduleMode', [workingMode]),
      })),
    };
  }

  /**
   * Yesterday, the day before and this month so far, in kWh as the consumption pages give it (the
   * rollups hold the register's Wh).
   */
  async energy(scope: Scope): Promise<EnergySummary> {
    const today = this.today();
    const yesterday = addDays(today, -1);
    const dayBefore = addDays(today, -2);
    const monthStart = `${today.slice(0, 7)}-01`;
    const days = await this.gridDays(scope, dayBefore < monthStart ? dayBefore : monthStart, today);
    const kwh = (wh: number) => Math.round(wh) / 1000;
    const energyDay = (day: string) => {
      const found = days.get(day);
      const meters = found?.metersWithConsumption ?? 0;
      return { day, value: found && meters ? kwh(found.consumption) : null, meters };
    };
    const month = daysFrom(monthStart, today).map(energyDay);
    const known = month.flatMap((d) => (d.value === null ? [] : [days.get(d.day)?.consumption ?? 0]));
    return {
      yesterday: energyDay(yesterday),
      dayBefore: energyDay(dayBefore),
      month: {
        startDay: monthStart,
        endDay: today,
        value: known.length ? kwh(known.reduce((sum, wh) => sum + wh, 0)) : null,
      },
      days: month,
    };
  }

  /** Yesterday's and today's read success, as the data collection report counts them for the caller's scope. */
  async collection(scope: Scope): Promise<CollectionKpi> {
    const today = this.today();
    const node = await this.report.node(undefined, scope);
    const { days } = await this.report.daily(node, this.report.period({ startDay: addDays(today, -1), endDay: today }));
    const [yesterday, todays] = days;
    if (!yesterday || !todays) throw new Error('the report answered no day');
    return { yesterday, today: todays };
  }

  /** The latest operation-log entries the caller may read in the system log (its scope, journalScope). */
  async operations(scope: Scope, language: number): Promise<OperationLog> {
    const rows = await this.db
      .select()
      .from(sysLog)
      .where(and(eq(sysLog.logType, 'operation'), journalScope(scope)))
      .orderBy(desc(sysLog.time), desc(sysLog.id))
      .limit(OPERATION_LOG_ROWS);
    return { list: rows.map((row) => toSystemLog(row, language)) };
  }
}
