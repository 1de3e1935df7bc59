import { messageText, PLAN_ITEM_TYPES, RESULT, type TaskDevs } from '@meterdesk/contracts';
import { and, eq, inArray, or, type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Executor } from '../../db/driver';
import { inSubtree } from '../../db/list';
import { countAll } from '../../db/rows';
import { commModule, consumer, dcu, meter, meterType, poc, supplier, tariff } from '../../db/schema';
import { uniqueColumns } from '../../db/unique-keys';
import { ApiError, fieldError } from '../../errors/api-error';
import { GRID_TREE, gridScope, type Scope } from '../../rbac/scope';

/**
 * A collection task's stored device set is scoped by itself: a task made by a user outside the admin
 * role always names the grid nodes it covers (their user groups' nodes when they named none), so the
 * runs expand it the same way whoever or whatever starts them, and the caller's scope decides who sees it.
 */
export const TASK_RUN_SCOPE: Scope = { all: true, orgId: null, gridIds: [] };

/** A meter a collection task reads, with the DCU it is reached through. */
export interface TaskMeter {
  id: string;
  serial: string;
  dcuId: string | null;
  dcuNo: string | null;
  gridId: string;
}

/**
 * The condition on `meter` that selects a task's device set within the caller's grid scope. Every part
 * is SQL over indexed keys or small catalogues, so a set of a million meters is counted, paged or
 * streamed by the database, never filtered in JavaScript.
 *
 * How each spec devParams filter maps onto the archive:
 * - devTypeCode: the spec device type (0 meter … 5 carrier chip) of the meter's communication module
 *   (`comm_module.device_type`); a meter without a module is a plain meter, type 0.
 * - group3: the task group of the POC the meter measures (`poc.task_group_id`), a whole number.
 * - manufacturer: the meter's supplier (`meter.supplier_id`), named by id or by any of its business keys (code, name).
 * - models: the meter's type (`meter.meter_type_id`), each named by id or model name.
 * - is_major_consumer: when true, only meters supplying a special consumer (`consumer.special`, spec
 *   "regular or special consumer"; the archive keeps no other notion of a major consumer). False, like
 *   absent, does not filter: the form offers it as a switch, "major consumers only".
 * - tariff_item_id: the meter's tariff (`meter.tariff_id`), named by id or, as tasks saved before tariffs
 *   were records hold it, by name.
 * - grid_ids: the meter's grid node lies under one of them (`meter.grid_id`).
 */
export function taskMeterCondition(devs: TaskDevs, scope: Scope): SQL {
  const parts: (SQL | undefined)[] = [gridScope(scope, meter.gridId)];
  const keys = lowerKeys(devs.devList);
  if (keys.length)
    parts.push(
      devs.itemType === PLAN_ITEM_TYPES.meter
        ? inArray(sql`lower(${meter.devAddr})`, keys)
        : inArray(
            meter.dcuId,
            sqlSelectIds(dcu.id, dcu, and(inArray(sql`lower(${dcu.dcuNo})`, keys), gridScope(scope, dcu.gridId))),
          ),
    );
  const p = devs.devParams ?? {};
  if (p.devTypeCode !== undefined && p.devTypeCode !== '') {
    const type = wholeNumber(p.devTypeCode, 'devs.devParams.devTypeCode');
    const ofType = inArray(meter.moduleId, sqlSelectIds(commModule.id, commModule, eq(commModule.deviceType, type)));
    parts.push(type === 0 ? or(sql`${meter.moduleId} is null`, ofType) : ofType);
  }
  if (p.group3 !== undefined && p.group3 !== '') {
    const group = wholeNumber(p.group3, 'devs.devParams.group3');
    parts.push(sql`exists (select 1 from ${poc} where ${poc.meterId} = ${meter.id} and ${poc.taskGroupId} = ${group})`);
  }
  if (p.manufacturer) {
    const named = p.manufacturer.toLowerCase();
    parts.push(
      inArray(
        meter.supplierId,
        sqlSelectIds(
          supplier.id,
          supplier,
          or(eq(supplier.id, p.manufacturer), ...uniqueColumns(supplier).map((key) => eq(sql`lower(${key})`, named))),
        ),
      ),
    );
  }
  if (p.models?.length) {
    const named = lowerKeys(p.models);
    parts.push(
      inArray(
        meter.meterTypeId,
        sqlSelectIds(
          meterType.id,
          meterType,
          or(inArray(meterType.id, p.models), inArray(sql`lower(${meterType.modelName})`, named)),
        ),
      ),
    );
  }
  if (p.is_major_consumer)
    parts.push(
      sql`exists (select 1 from ${poc} join ${consumer} on ${consumer.id} = ${poc.consumerId} where ${poc.meterId} = ${meter.id} and ${consumer.special})`,
    );
  if (p.tariff_item_id) {
    const named = p.tariff_item_id.toLowerCase();
    parts.push(
      inArray(
        meter.tariffId,
        sqlSelectIds(tariff.id, tariff, or(eq(tariff.id, named), eq(sql`lower(${tariff.tariffName})`, named))),
      ),
    );
  }
  if (p.grid_ids?.length) parts.push(inSubtree(meter.gridId, GRID_TREE, p.grid_ids));
  return and(...parts) ?? sql`true`;
}

/**
 * A task's meters as a query the caller finishes: await it, page it (`.orderBy().limit()`), or use it
 * as a subquery (`.as('m')`) to expand a run in one INSERT … SELECT.
 */
export function taskMeters(db: Executor, devs: TaskDevs, scope: Scope) {
  return db
    .select({ id: meter.id, serial: meter.devAddr, dcuId: meter.dcuId, dcuNo: dcu.dcuNo, gridId: meter.gridId })
    .from(meter)
    .leftJoin(dcu, eq(dcu.id, meter.dcuId))
    .where(taskMeterCondition(devs, scope))
    .$dynamic();
}

export async function countTaskMeters(db: Executor, devs: TaskDevs, scope: Scope): Promise<number> {
  const [row] = await db.select({ n: countAll() }).from(meter).where(taskMeterCondition(devs, scope));
  return row?.n ?? 0;
}

/**
 * Checks a device set as the caller gives it: a device named outside the caller's grid scope answers
 * 404 like one that does not exist (naming them), and a set that matches no meter is refused.
 * Answers how many meters it matches.
 */
export async function checkTaskDevs(db: Executor, devs: TaskDevs, scope: Scope): Promise<number> {
  if (!devs.devList.length && !devs.devParams) throw fieldError(RESULT.badRequest, 'devs.devList', 'mandatory');
  const keys = lowerKeys(devs.devList);
  if (keys.length) {
    const found =
      devs.itemType === PLAN_ITEM_TYPES.meter
        ? await db
            .select({ key: sql<string>`lower(${meter.devAddr})` })
            .from(meter)
            .where(and(inArray(sql`lower(${meter.devAddr})`, keys), gridScope(scope, meter.gridId)))
        : await db
            .select({ key: sql<string>`lower(${dcu.dcuNo})` })
            .from(dcu)
            .where(and(inArray(sql`lower(${dcu.dcuNo})`, keys), gridScope(scope, dcu.gridId)));
    const known = new Set(found.map((f) => f.key));
    const missing = [...new Set(devs.devList.map((k) => k.trim()))].filter((k) => !known.has(k.toLowerCase()));
    if (missing.length)
      throw new ApiError(RESULT.notFound, 'deviceNotFound', {
        devices: missing,
        issues: [{ field: 'devs.devList', key: 'deviceNotFound', message: messageText('deviceNotFound') }],
      });
  }
  const matched = await countTaskMeters(db, devs, scope);
  if (matched === 0) throw fieldError(RESULT.badRequest, 'devs', 'taskDevicesNone');
  return matched;
}

const lowerKeys = (keys: readonly string[]) => [...new Set(keys.map((k) => k.trim().toLowerCase()))];

function wholeNumber(value: string, field: string): number {
  if (!/^\d{1,4}$/.test(value.trim())) throw fieldError(RESULT.badRequest, field, 'invalidValue');
  return Number(value);
}

/** `(select id from table where …)`, for `inArray` over a small catalogue or an indexed key. */
const sqlSelectIds = (idColumn: AnyPgColumn, table: PgTable, where: SQL | undefined): SQL =>
  sql`(select ${idColumn} from ${table} where ${where ?? sql`true`})`;
