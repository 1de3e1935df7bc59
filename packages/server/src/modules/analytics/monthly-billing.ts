import {
  type MonthlyBillingMonthRow,
  type MonthlyBillingRow,
  monthlyBillingAnalytics,
  monthlyBillingApi,
  monthlyBillingDetailAnalytics,
  monthlyBillingDetailApi,
  TARIFF_RATES,
} from '@meterdesk/contracts';
import { type SQL, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/driver';
import { rowsOf } from '../../db/rows';
import { kilo, metersIn, NEIGHBOURS, wholeNodes } from './consumption';
import { type AnalyticsRequest, inPlace, type PageRequest, registerAnalytics } from './kit';
import { monthsOf } from './monthly-consumption';

/**
 * The billing freeze `f` of a month and the one before it `p` (reading_monthly, read on its key), as the
 * screens show them: registers in kWh / kvarh / kW, and the month's energy.
 */
const FREEZE = sql`f.meter_id is not null as frozen,
  ${kilo(sql`f.active_import`)} as "activeImport", ${kilo(sql`f.active_import_t1`)} as "activeImportT1",
  ${kilo(sql`f.active_import_t2`)} as "activeImportT2", ${kilo(sql`f.active_import_t3`)} as "activeImportT3",
  ${kilo(sql`f.active_import_t4`)} as "activeImportT4", ${kilo(sql`f.active_export`)} as "activeExport",
  ${kilo(sql`f.reactive_import`)} as "reactiveImport", ${kilo(sql`f.reactive_export`)} as "reactiveExport",
  ${kilo(sql`f.max_demand`)} as "maxDemand", ${kilo(sql`f.active_import - p.active_import`)} as energy`;

/** Joins the freezes of month `month` (an SQL date) for meter `meter` (an SQL id). */
const freezesOf = (meter: SQL, month: SQL) => sql`
  left join reading_monthly f on f.meter_id = ${meter} and f.month = ${month}
  left join reading_monthly p on p.meter_id = ${meter} and p.month = (${month} - interval '1 month')::date`;

/** The billing month's first day (the period is one month). */
const billingMonth = (request: AnalyticsRequest) => `${request.period.start}-01`;

/** The meters of the request, narrowed to those whose month is (or is not) frozen when the filter asks. */
function billedMeters(request: AnalyticsRequest): SQL {
  const frozen = request.body.frozen as boolean | undefined;
  if (frozen === undefined) return metersIn(request);
  const stored = sql`exists (select 1 from reading_monthly f where f.meter_id = m.id and f.month = ${billingMonth(request)}::date)`;
  return sql`${metersIn(request)} and ${frozen ? stored : sql`not ${stored}`}`;
}

/** Sorts by a figure rank the meters by their month rollup row (energy billed, the frozen maximum demand). */
const SORTS: Record<string, string> = { energy: 'r.energy', maxDemand: 'r.max_demand' };

/**
 * Each meter of the scope with its freeze of the billing month. In serial order the page's meters are
 * paged first and their freezes read on the key; a sort by a figure ranks the meters by their month rows.
 */
async function billingRows(db: Db, request: AnalyticsRequest, page: PageRequest) {
  const meters = billedMeters(request);
  const month = sql`${billingMonth(request)}::date`;
  const direction = sql.raw(page.sortOrder === 'descend' ? 'desc nulls last' : 'asc nulls last');
  const offset = (page.curPage - 1) * page.pageSize;
  const figure = SORTS[page.sortField ?? ''];
  const paged = figure
    ? sql`select x.* from (${meters}) x left join rollup_meter_month r on r.meter_id = x.id and r.month = ${month}
        order by ${sql.raw(figure)} ${direction}, x.id limit ${page.pageSize} offset ${offset}`
    : sql`${meters} order by lower(m.dev_addr) ${direction}, m.id limit ${page.pageSize} offset ${offset}`;
  const order = figure
    ? sql`order by ${sql.raw(figure)} ${direction}, x.id`
    : sql`order by lower(x.dev_addr) ${direction}, x.id`;
  const list = await rowsOf<MonthlyBillingRow>(
    db,
    sql`select x.id as "meterId", x.dev_addr as "devAddr", x.grid_id as "gridId", x.dcu_id as "dcuId",
        ${request.period.start}::text as month, ${FREEZE}, ${NEIGHBOURS}
      from (${paged}) x ${freezesOf(sql`x.id`, month)}
      left join rollup_meter_month r on r.meter_id = x.id and r.month = ${month}
      ${order}`,
  );
  const [{ total }] = (await rowsOf<{ total: number }>(db, sql`select count(*)::int as total from (${meters}) m`)) as [
    { total: number },
  ];
  return { list, total, curPage: page.curPage, pageSize: page.pageSize };
}

const RATE_COLUMNS = TARIFF_RATES.map((rate) => `energy_${rate.toLowerCase()}`);

/**
 * The scope's billing month: meters frozen or not, the month's energy (per rate for the chart) and its
 * highest maximum demand. Whole grid nodes sum their nodes' month rows; anything narrower its meters'.
 */
async function billingSummary(db: Db, request: AnalyticsRequest) {
  const month = sql`${billingMonth(request)}::date`;
  const sums = sql.raw(
    ['energy', ...RATE_COLUMNS].map((c) => `round(sum(r.${c})::numeric / 1000, 3)::float8 as ${c}`).join(', '),
  );
  const byNodes = wholeNodes(request) && request.body.frozen === undefined;
  const [row] = (await rowsOf<Record<string, number | null>>(
    db,
    byNodes
      ? sql`select coalesce(sum(r.frozen), 0)::int as frozen, ${sums}, ${kilo(sql`max(r.max_demand)`)} as max_demand
          from rollup_grid_month r where r.month = ${month} and ${inPlace(request.place, sql.raw('r.grid_id'))}`
      : sql`select (count(*) filter (where r.frozen))::int as frozen, ${sums}, ${kilo(sql`max(r.max_demand)`)} as max_demand
          from (${billedMeters(request)}) m join rollup_meter_month r on r.meter_id = m.id and r.month = ${month}`,
  )) as [Record<string, number | null>];
  const [{ meters }] = (await rowsOf<{ meters: number }>(
    db,
    sql`select count(*)::int as meters from (${billedMeters(request)}) m`,
  )) as [{ meters: number }];
  const frozen = row.frozen ?? 0;
  return {
    figures: {
      meters,
      metersFrozen: frozen,
      metersNotFrozen: Math.max(0, meters - frozen),
      energy: row.energy ?? null,
      maxDemand: row.max_demand ?? null,
    },
    points: TARIFF_RATES.map((rate, i) => ({ rate, energy: row[RATE_COLUMNS[i] as string] ?? null })),
  };
}

const DETAIL_SORTS: Record<string, string> = {
  month: 'mo.month',
  energy: 'f.active_import - p.active_import',
  maxDemand: 'f.max_demand',
};

/** One meter's billing months, each month of the period (one not frozen too), newest first. */
async function meterBillingMonths(db: Db, request: AnalyticsRequest, page: PageRequest) {
  const months = monthsOf(request.period);
  const meterId = request.place.meterId as string;
  const order = DETAIL_SORTS[page.sortField ?? ''] ?? 'mo.month';
  const direction = sql.raw(page.sortOrder === 'ascend' ? 'asc nulls last' : 'desc nulls last');
  const list = await rowsOf<MonthlyBillingMonthRow>(
    db,
    sql`select ${meterId}::varchar as "meterId", to_char(mo.month, 'YYYY-MM') as month, ${FREEZE}
      from (${months.series}) mo ${freezesOf(sql`${meterId}`, sql`mo.month`)}
      order by ${sql.raw(order)} ${direction}, mo.month desc
      limit ${page.pageSize} offset ${(page.curPage - 1) * page.pageSize}`,
  );
  return { list, total: months.count, curPage: page.curPage, pageSize: page.pageSize };
}

async function meterBillingSummary(db: Db, request: AnalyticsRequest) {
  const months = monthsOf(request.period);
  const meterId = request.place.meterId as string;
  const rates = sql.raw(
    TARIFF_RATES.map(
      (rate) =>
        `round((f.active_import_${rate.toLowerCase()} - p.active_import_${rate.toLowerCase()})::numeric / 1000, 3)::float8 as "energy${rate}"`,
    ).join(', '),
  );
  const rows = await rowsOf<{
    month: string;
    frozen: boolean;
    energy: number | null;
    maxDemand: number | null;
    energyT1: number | null;
    energyT2: number | null;
    energyT3: number | null;
    energyT4: number | null;
  }>(
    db,
    sql`select to_char(mo.month, 'YYYY-MM') as month, f.meter_id is not null as frozen,
        ${kilo(sql`f.active_import - p.active_import`)} as energy, ${kilo(sql`f.max_demand`)} as "maxDemand", ${rates}
      from (${months.series}) mo ${freezesOf(sql`${meterId}`, sql`mo.month`)} order by mo.month`,
  );
  const [{ devAddr }] = (await rowsOf<{ devAddr: string }>(
    db,
    sql`select dev_addr as "devAddr" from meter where id = ${meterId}`,
  )) as [{ devAddr: string }];
  const energies = rows.flatMap((r) => (r.energy === null ? [] : [r.energy]));
  const demands = rows.flatMap((r) => (r.maxDemand === null ? [] : [r.maxDemand]));
  return {
    figures: {
      devAddr,
      monthsFrozen: rows.filter((r) => r.frozen).length,
      energy: energies.length ? Math.round(energies.reduce((a, b) => a + b, 0) * 1000) / 1000 : null,
      maxDemand: demands.length ? Math.max(...demands) : null,
    },
    points: rows.map(({ month, energyT1, energyT2, energyT3, energyT4 }) => ({
      month,
      energyT1,
      energyT2,
      energyT3,
      energyT4,
    })),
  };
}

/** /dataAnalytic/monthlyBilling and its detail: the monthly frozen values. */
export function registerMonthlyBillingAnalytics(app: FastifyInstance, db: Db): void {
  registerAnalytics(app, db, monthlyBillingAnalytics, monthlyBillingApi, {
    rows: (request, page) => billingRows(db, request, page),
    summary: (request) => billingSummary(db, request),
  });
  registerAnalytics(app, db, monthlyBillingDetailAnalytics, monthlyBillingDetailApi, {
    rows: (request, page) => meterBillingMonths(db, request, page),
    summary: (request) => meterBillingSummary(db, request),
  });
}
