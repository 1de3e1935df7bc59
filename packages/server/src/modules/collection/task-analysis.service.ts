import {
  type DcuKpi,
  MAX_ANALYSIS_RANGE_DAYS,
  MAX_EXPORT_ROWS,
  type Page,
  RESULT,
  type RunKpi,
  type TaskAnalysisDetail,
  type TaskAnalysisQuery,
  type TaskKpi,
  taskAnalysisEntity,
} from '@meterdesk/contracts';
import { and, eq, type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import type { Db } from '../../db/driver';
import { defineList, listWhere } from '../../db/list';
import { countRows, rowsOf } from '../../db/rows';
import { collectionRun, plan } from '../../db/schema';
import { fieldError, notFound } from '../../errors/api-error';
import type { SessionContext } from '../../http/operation';
import { gridScope, type Scope, scopeOf } from '../../rbac/scope';
import { chainMeters, KPI_SUMS } from './run-kpi';
import { type TaskService, visibleTasks } from './task.service';

const DAY_MS = 86_400_000;
const EXPORT_CHUNK = 500;

export interface Period {
  startTime: string;
  endTime: string;
}
type Sort<F extends string> = { sortField?: F | undefined; sortOrder?: 'ascend' | 'descend' | undefined };
type Paged = { curPage: number; pageSize: number };

/** The offset (minutes east of UTC) an ISO moment was written in. */
function offsetOf(moment: string): number {
  const m = /([+-])(\d{2}):?(\d{2})?$/.exec(moment);
  if (!m || /z$/i.test(moment)) return 0;
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0));
}

/**
 * spec §5: a range of at most MAX_ANALYSIS_RANGE_DAYS days, nothing after today 23:59:59. "Today" is
 * the caller's, in the offset their end moment was written in: a browser east of UTC is already on
 * the next day while the server's UTC is not.
 */
export function checkPeriod(q: Period, now: Date): { from: Date; to: Date } {
  const from = new Date(q.startTime);
  const to = new Date(q.endTime);
  if (from >= to) throw fieldError(RESULT.badRequest, 'startTime', 'timeRangeInvalid');
  const offset = offsetOf(q.endTime) * 60_000;
  const endOfToday = (Math.floor((now.getTime() + offset) / DAY_MS) + 1) * DAY_MS - 1 - offset;
  if (to.getTime() > endOfToday) throw fieldError(RESULT.badRequest, 'endTime', 'afterToday');
  if (to.getTime() - from.getTime() > MAX_ANALYSIS_RANGE_DAYS * DAY_MS)
    throw fieldError(RESULT.badRequest, 'endTime', 'timeRangeTooLong');
  return { from, to };
}

/**
 * The occurrences (scheduled and run-now runs) of the selected tasks due in the period, and `kpi`: per
 * occurrence, grid node, DCU and last result code, what its chain made of the meters in the caller's
 * grid scope. A settled occurrence is read from collection_run_kpi (written when a run of its chain
 * finishes), or, for a caller who sees everything, from its sums per code (`per: 'task'`, no DCU) or per
 * DCU (`per: 'dcu'`, no code: then `kpi` holds one row per occurrence and DCU); one whose chain is still
 * reading, or that has no rows there, from its device rows, summed alike.
 */
function chainCtes(
  tasks: SQL | undefined,
  period: { from: Date; to: Date },
  scope: Scope,
  per: 'task' | 'dcu' = 'task',
): SQL {
  const inScope = (column: SQL) => gridScope(scope, column) ?? sql`true`;
  const figures = sql`k.devices, k.expected, k.received, k.first_received, k.failed`;
  const settled = !scope.all
    ? sql`select k.run_id, o.plan_id, k.dcu_no, k.code, ${figures}
        from collection_run_kpi k join occ o on o.id = k.run_id`
    : per === 'task'
      ? sql`select k.run_id, o.plan_id, null::varchar as dcu_no, k.code, ${figures}
        from collection_run_code_kpi k join occ o on o.id = k.run_id`
      : sql`select k.run_id, o.plan_id, k.dcu_no, null::varchar as code, ${figures}
        from collection_run_dcu_kpi k join occ o on o.id = k.run_id`;
  // The occurrences still reading, summed from their meters as the settled ones are kept.
  const live = !scope.all
    ? { columns: sql`dcu_no, code`, keys: sql`grid_id, dcu_no, code` }
    : per === 'task'
      ? { columns: sql`null::varchar as dcu_no, code`, keys: sql`code` }
      : { columns: sql`dcu_no, null::varchar as code`, keys: sql`dcu_no` };
  return sql`occ as (
      select r.id, r.plan_id, r.kind, r.status, r.due_at
      from ${collectionRun} r
      where r.plan_id in (select ${plan.id} from ${plan} where ${tasks ?? sql`true`})
        and r.kind in ('scheduled', 'manual', 'history') and r.status <> 'cancelled'
        and r.due_at >= ${period.from} and r.due_at <= ${period.to}
    ),
    live_occ as (
      select o.id, o.plan_id from occ o
      where o.status in ('queued', 'running')
        or exists (select 1 from ${collectionRun} x where x.parent_run_id = o.id and x.status = 'running')
        or not exists (select 1 from collection_run_kpi k where k.run_id = o.id)
    ),
    kpi as (
      ${settled}
      where o.id not in (select id from live_occ) and ${scope.all ? sql`true` : inScope(sql`k.grid_id`)}
      union all
      select run_id, plan_id, ${live.columns}, ${KPI_SUMS}
      from (${chainMeters(sql`select id, plan_id from live_occ`, inScope(sql`d.grid_id`))}) m
      group by run_id, plan_id, ${live.keys}
    )`;
}

/**
 * The kpi rows summed per occurrence and `key` (a task, a DCU): a period's figure sums its occurrences,
 * its meters are the most one occurrence had (a task's or DCU's size), and its failures are failed
 * reads, a meter failing on three days counting three.
 */
const PER_OCCURRENCE = (key: SQL) =>
  sql`select run_id, ${key}, sum(devices) as devices, sum(expected) as expected, sum(received) as received,
    sum(failed) as failed from kpi group by run_id, ${key}`;

/** received ÷ expected in percent, one decimal (as a run's own rate); null when nothing was expected. */
const rateOf = (received: SQL, expected: SQL) =>
  sql`(case when ${expected} > 0 then round(1000.0 * ${received} / ${expected}) / 10 end)::float8`;

// Worst first: what an operator opens this page to find.
const TASK_DEFAULT_ORDER = sql`k.success_rate asc nulls last`;

const TASK_KPI = defineList({
  entity: taskAnalysisEntity,
  columns: {
    planName: plan.planName,
    runs: sql`coalesce(n.runs, 0)`,
    devices: sql`coalesce(k.devices, 0)`,
    expected: sql`coalesce(k.expected, 0)`,
    received: sql`coalesce(k.received, 0)`,
    successRate: sql`k.success_rate`,
    failedDevices: sql`coalesce(k.failed, 0)`,
  },
  defaultOrder: TASK_DEFAULT_ORDER,
  tieBreak: plan.id,
});

/** `column dir nulls last`, then the tie-break: an empty rate sorts after every figure either way. */
function orderOf<F extends string>(columns: Record<F, SQLWrapper>, q: Sort<F>, fallback: SQL, tieBreak: SQL): SQL {
  const column = q.sortField ? columns[q.sortField] : undefined;
  if (!column) return sql`${fallback}, ${tieBreak}`;
  return sql`${column} ${q.sortOrder === 'descend' ? sql`desc` : sql`asc`} nulls last, ${tieBreak}`;
}

const pageWindow = (q: Paged) => ({ limit: q.pageSize, offset: (q.curPage - 1) * q.pageSize });

interface TaskRow {
  id: string;
  plan_name: string;
  plan_status: string;
  runs: number;
  devices: number;
  expected: number;
  received: number;
  success_rate: number | null;
  failed: number;
}

const toTaskKpi = (r: TaskRow): TaskKpi => ({
  id: r.id,
  planName: r.plan_name,
  planStatus: r.plan_status as TaskKpi['planStatus'],
  runs: Number(r.runs),
  devices: Number(r.devices),
  expected: Number(r.expected),
  received: Number(r.received),
  successRate: r.success_rate === null ? null : Number(r.success_rate),
  failedDevices: Number(r.failed),
});

/**
 * Task analysis: each figure is one statement aggregated in the database from the occurrences'
 * collection_run_kpi rows (and the device rows of those still reading), never rows carried into the server.
 */
export class TaskAnalysisService {
  constructor(
    private readonly db: Db,
    private readonly tasks: TaskService,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async list(q: TaskAnalysisQuery, session: SessionContext): Promise<Page<TaskKpi>> {
    const period = checkPeriod(q, this.now());
    const scope = await scopeOf(this.db, session);
    const where = listWhere(TASK_KPI, q, visibleTasks(scope));
    const [list, total] = await Promise.all([
      this.taskRows(where, period, scope, q, pageWindow(q)),
      countRows(this.db, plan, where),
    ]);
    return { list, total, curPage: q.curPage, pageSize: q.pageSize };
  }

  /**
   * Every task the list's filters select, in the list's order, in chunks: the export. The period is
   * checked before the first chunk is asked for, so a refusal is a 400 rather than a broken file.
   */
  async all(
    q: Omit<TaskAnalysisQuery, 'curPage' | 'pageSize'>,
    session: SessionContext,
  ): Promise<AsyncIterable<TaskKpi[]>> {
    const period = checkPeriod(q, this.now());
    const scope = await scopeOf(this.db, session);
    const where = listWhere(TASK_KPI, q, visibleTasks(scope));
    const read = (offset: number) => this.taskRows(where, period, scope, q, { limit: EXPORT_CHUNK, offset });
    return (async function* () {
      for (let offset = 0; offset < MAX_EXPORT_ROWS; offset += EXPORT_CHUNK) {
        const rows = await read(offset);
        if (rows.length) yield rows;
        if (rows.length < EXPORT_CHUNK) return;
      }
    })();
  }

  async detail(q: Period & { planid: string }, session: SessionContext): Promise<TaskAnalysisDetail> {
    const period = checkPeriod(q, this.now());
    const scope = await scopeOf(this.db, session);
    const where = and(eq(plan.id, q.planid), visibleTasks(scope));
    const [task] = await this.taskRows(where, period, scope, {}, { limit: 1, offset: 0 });
    if (!task) throw notFound();
    const codes = await rowsOf<{ code: string; devices: number }>(
      this.db,
      sql`with ${chainCtes(where, period, scope)}
        select code, sum(devices)::int as devices from kpi where code is not null
        group by code order by devices desc, code`,
    );
    return {
      task,
      byCode: codes.map((c) => ({
        code: c.code as TaskAnalysisDetail['byCode'][number]['code'],
        devices: Number(c.devices),
      })),
    };
  }

  async runs(
    q: Period & Paged & Sort<RunKpiSort> & { planid: string },
    session: SessionContext,
  ): Promise<Page<RunKpi>> {
    const period = checkPeriod(q, this.now());
    await this.tasks.detail(q.planid, session);
    const scope = await scopeOf(this.db, session);
    const where = eq(plan.id, q.planid);
    const columns: Record<RunKpiSort, SQL> = {
      dueAt: sql`o.due_at`,
      expected: sql`coalesce(k.expected, 0)`,
      received: sql`coalesce(k.received, 0)`,
      successRate: sql`k.success_rate`,
      repairedShare: sql`k.repaired_share`,
      failedDevices: sql`coalesce(k.failed, 0)`,
    };
    const { limit, offset } = pageWindow(q);
    const rows = await rowsOf<RunRow>(
      this.db,
      sql`with ${chainCtes(where, period, scope)},
        per_run as (
          select run_id, sum(devices)::int as devices, sum(expected)::float8 as expected, sum(received)::float8 as received,
            ${rateOf(sql`sum(received)`, sql`sum(expected)`)} as success_rate,
            (case when sum(received) > 0
              then round(1000.0 * (sum(received) - sum(first_received)) / sum(received)) / 10 end)::float8 as repaired_share,
            sum(failed)::int as failed
          from kpi group by run_id
        )
        select o.id, o.kind, o.status, o.due_at, k.devices, k.expected, k.received, k.success_rate, k.repaired_share,
          k.failed,
          (select count(*)::int from ${collectionRun} x
            where x.parent_run_id = o.id and x.status in ('running', 'finished')) as repairs
        from occ o left join per_run k on k.run_id = o.id
        order by ${orderOf(columns, q, sql`o.due_at desc`, sql`o.id`)}
        limit ${limit} offset ${offset}`,
    );
    const [count] = await rowsOf<{ n: number }>(
      this.db,
      sql`with ${chainCtes(where, period, scope)} select count(*)::int as n from occ`,
    );
    return { list: rows.map(toRunKpi), total: Number(count?.n ?? 0), curPage: q.curPage, pageSize: q.pageSize };
  }

  async dcus(
    q: Period & Paged & Sort<DcuKpiSort> & { planid: string },
    session: SessionContext,
  ): Promise<Page<DcuKpi>> {
    const period = checkPeriod(q, this.now());
    await this.tasks.detail(q.planid, session);
    const scope = await scopeOf(this.db, session);
    const columns: Record<DcuKpiSort, SQL> = {
      dcuNo: sql`dcu_no`,
      devices: sql`devices`,
      expected: sql`expected`,
      received: sql`received`,
      successRate: sql`success_rate`,
      failedDevices: sql`failed`,
    };
    const { limit, offset } = pageWindow(q);
    const rows = await rowsOf<DcuRow>(
      this.db,
      sql`with ${chainCtes(eq(plan.id, q.planid), period, scope, 'dcu')},
        per_dcu as (
          select dcu_no, max(devices)::int as devices, sum(expected)::float8 as expected,
            sum(received)::float8 as received, ${rateOf(sql`sum(received)`, sql`sum(expected)`)} as success_rate,
            sum(failed)::int as failed
          from ${scope.all ? sql`kpi` : sql`(${PER_OCCURRENCE(sql`dcu_no`)})`} r group by dcu_no
        )
        select *, count(*) over () as total from per_dcu
        order by ${orderOf(columns, q, sql`success_rate asc nulls last`, sql`dcu_no asc nulls first`)}
        limit ${limit} offset ${offset}`,
    );
    let total = Number(rows[0]?.total ?? 0);
    if (!rows.length && q.curPage > 1) {
      const [count] = await rowsOf<{ n: number }>(
        this.db,
        sql`with ${chainCtes(eq(plan.id, q.planid), period, scope, 'dcu')}
          select count(distinct coalesce(dcu_no, ''))::int as n from kpi`,
      );
      total = Number(count?.n ?? 0);
    }
    return { list: rows.map(toDcuKpi), total, curPage: q.curPage, pageSize: q.pageSize };
  }

  private async taskRows(
    where: SQL | undefined,
    period: { from: Date; to: Date },
    scope: Scope,
    q: Sort<TaskSort>,
    page: { limit: number; offset: number },
  ): Promise<TaskKpi[]> {
    const rows = await rowsOf<TaskRow>(
      this.db,
      sql`with ${chainCtes(where, period, scope)},
        runs_of as (select plan_id, count(*)::int as runs from occ group by plan_id),
        per_task as (
          select plan_id, max(devices)::int as devices, sum(expected)::float8 as expected,
            sum(received)::float8 as received, ${rateOf(sql`sum(received)`, sql`sum(expected)`)} as success_rate,
            sum(failed)::int as failed
          from (${PER_OCCURRENCE(sql`plan_id`)}) r group by plan_id
        )
        select ${plan.id} as id, ${plan.planName} as plan_name, ${plan.planStatus} as plan_status,
          coalesce(n.runs, 0) as runs, coalesce(k.devices, 0) as devices, coalesce(k.expected, 0) as expected,
          coalesce(k.received, 0) as received, k.success_rate, coalesce(k.failed, 0) as failed
        from ${plan}
        left join runs_of n on n.plan_id = ${plan.id}
        left join per_task k on k.plan_id = ${plan.id}
        where ${where ?? sql`true`}
        order by ${orderOf(TASK_KPI.columns, q, TASK_DEFAULT_ORDER, sql`${plan.planName}, ${plan.id}`)}
        limit ${page.limit} offset ${page.offset}`,
    );
    return rows.map(toTaskKpi);
  }
}

type TaskSort = (typeof taskAnalysisEntity.sortable)[number];
type RunKpiSort = 'dueAt' | 'expected' | 'received' | 'successRate' | 'repairedShare' | 'failedDevices';
type DcuKpiSort = 'dcuNo' | 'devices' | 'expected' | 'received' | 'successRate' | 'failedDevices';

interface RunRow {
  id: string;
  kind: string;
  status: string;
  due_at: Date | string;
  devices: number | null;
  expected: number | null;
  received: number | null;
  success_rate: number | null;
  repaired_share: number | null;
  failed: number | null;
  repairs: number;
}

const nullableNumber = (v: unknown) => (v === null || v === undefined ? null : Number(v));

const toRunKpi = (r: RunRow): RunKpi => ({
  runId: r.id,
  kind: r.kind as RunKpi['kind'],
  status: r.status as RunKpi['status'],
  dueAt: new Date(r.due_at).toISOString(),
  devices: Number(r.devices ?? 0),
  expected: Number(r.expected ?? 0),
  received: Number(r.received ?? 0),
  successRate: nullableNumber(r.success_rate),
  repairs: Number(r.repairs),
  repairedShare: nullableNumber(r.repaired_share),
  failedDevices: Number(r.failed ?? 0),
});

interface DcuRow {
  dcu_no: string | null;
  devices: number;
  expected: number;
  received: number;
  success_rate: number | null;
  failed: number;
  total: number | string;
}

const toDcuKpi = (r: DcuRow): DcuKpi => ({
  dcuNo: r.dcu_no,
  devices: Number(r.devices),
  expected: Number(r.expected),
  received: Number(r.received),
  successRate: nullableNumber(r.success_rate),
  failedDevices: Number(r.failed),
});
