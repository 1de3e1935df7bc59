import { type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/driver';
import { collectionRun } from '../../db/schema';

/**
 * Per occurrence and meter, what the occurrence's chain (its own run and the repairs that have read)
 * made of it: expected, received at the last read (received counts what the store holds, so it only
 * grows along a chain), received by the occurrence's own run, and the last answered code.
 * `occurrences` selects (id, plan_id); `where` filters the device rows (the caller's grid scope).
 */
export function chainMeters(occurrences: SQL, where: SQL = sql`true`): SQL {
  return sql`select o.id as run_id, o.plan_id, d.meter_id, max(d.grid_id) as grid_id, d.dcu_no,
      max(d.expected) as expected,
      max(d.received) as received,
      coalesce(max(d.received) filter (where c.id = o.id), 0) as first_received,
      (array_agg(d.result_code order by c.due_at desc, c.create_time desc)
        filter (where d.result_code is not null))[1] as code
    from (${occurrences}) o
    cross join lateral (
      select x.id, x.due_at, x.create_time from ${collectionRun} x where x.id = o.id
      union all
      select x.id, x.due_at, x.create_time from ${collectionRun} x
      where x.parent_run_id = o.id and x.status in ('running', 'finished')
    ) c
    join collection_run_device d on d.run_id = c.id
    where ${where}
    group by o.id, o.plan_id, d.meter_id, d.dcu_no`;
}

/** Meters of `chainMeters` rows summed per occurrence, grid node, DCU and last code (collection_run_kpi's shape). */
export const KPI_SUMS = sql.raw(`count(*)::int as devices, sum(expected)::float8 as expected,
  sum(received)::float8 as received, sum(first_received)::float8 as first_received,
  (count(*) filter (where received < expected or coalesce(code, '00') <> '00'))::int as failed`);

/**
 * Writes an occurrence's collection_run_kpi rows again from its chain's device rows: after each run
 * of the chain finishes, so task analysis reads them instead of every meter of every run.
 */
export async function writeRunKpi(tx: Executor, occurrenceId: string): Promise<void> {
  await tx.execute(sql`delete from collection_run_kpi where run_id = ${occurrenceId}`);
  await tx.execute(sql`delete from collection_run_code_kpi where run_id = ${occurrenceId}`);
  await tx.execute(sql`delete from collection_run_dcu_kpi where run_id = ${occurrenceId}`);
  await tx.execute(sql`
    insert into collection_run_kpi (run_id, grid_id, dcu_no, code, devices, expected, received, first_received, failed)
    select run_id, grid_id, dcu_no, code, ${KPI_SUMS}
    from (${chainMeters(sql`select id, plan_id from ${collectionRun} where id = ${occurrenceId}`)}) m
    group by run_id, grid_id, dcu_no, code`);
  await writeKpiSummaries(tx, sql`${occurrenceId}`);
}

/**
 * collection_run_code_kpi's and collection_run_dcu_kpi's rows of the occurrences `runIds` selects,
 * summed from their collection_run_kpi rows.
 */
export async function writeKpiSummaries(tx: Executor, runIds: SQL): Promise<void> {
  const sums = sql.raw('sum(devices), sum(expected), sum(received), sum(first_received), sum(failed)');
  await tx.execute(sql`
    insert into collection_run_code_kpi (run_id, code, devices, expected, received, first_received, failed)
    select run_id, code, ${sums}
    from collection_run_kpi where run_id in (${runIds}) group by run_id, code order by run_id, code`);
  await tx.execute(sql`
    insert into collection_run_dcu_kpi (run_id, dcu_no, devices, expected, received, first_received, failed)
    select run_id, dcu_no, ${sums}
    from collection_run_kpi where run_id in (${runIds}) group by run_id, dcu_no order by run_id, dcu_no`);
}
