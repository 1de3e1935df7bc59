import {
  type ConsumerCreate,
  ConsumerCreateSchema,
  type ImportError,
  type MessageKey,
  type MeterCreate,
  MeterCreateSchema,
  type ModuleCreate,
  ModuleCreateSchema,
  meterImportApi,
  type PocCreate,
  PocCreateSchema,
} from '@meterdesk/contracts';
import { inArray, type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { z } from 'zod';
import type { SecretBox } from '../../crypto/secret-box';
import { newId } from '../../db/ids';
import { type EveryField, qualified } from '../../db/rows';
import { commModule, consumer, dcu, meter, meterType, poc, supplier } from '../../db/schema';
import { gridScope, type Scope } from '../../rbac/scope';
import { FirstLines } from './import/compact-strings';
import { gridColumn, resolveGrids } from './import/grid-reference';
import {
  byChunks,
  type CheckResult,
  type ColumnOf,
  cellValue,
  duplicatesInFile,
  type ImportColumn,
  type ImportContext,
  type ImportDefinition,
  type ImportRow,
  idsByKey,
  importError,
  schemaErrors,
  takenValues,
} from './import/import-kit';
import { referenceError } from './import/record-import';
import { resolveTariffs } from './import/tariff-reference';

const label = (name: string) => `meter.fields.${name}`;
const importLabel = (name: string) => `meter.importColumns.${name}`;

// A new consumer, module or POC takes the meter's grid node, and the POC the meter's id: checked apart.
const NEW_CONSUMER = ConsumerCreateSchema.omit({ gridId: true });
const NEW_MODULE = ModuleCreateSchema.omit({ gridId: true });
const NEW_POC = PocCreateSchema.omit({ gridId: true, meterId: true });
const METER_SHAPE = MeterCreateSchema.shape as Record<string, z.ZodType>;

/** spec §3's meter import headers (they are the column keys), and the meter type a meter may name. */
export const METER_IMPORT_COLUMNS: readonly ImportColumn[] = [
  { key: 'consumerCode', label: label('consumerCode') },
  { key: 'consumerName', label: importLabel('consumerName') },
  { key: 'identityNumber', label: importLabel('identityNumber') },
  { key: 'devAddr', label: label('devAddr'), required: true, example: '000000000001' },
  { key: 'moduleNo', label: label('moduleNo') },
  { key: 'simNo', label: importLabel('simNo') },
  { key: 'meterBoxNo', label: label('meterBoxNo') },
  gridColumn(label('gridName')),
  { key: 'supplierName', label: label('supplierName'), by: 'crud.importBy.name' },
  { key: 'tariffId', label: label('tariffId'), by: 'crud.importBy.nameOrId' },
  { key: 'pocPoint', label: importLabel('pocPoint') },
  { key: 'pocNature', label: importLabel('pocNature'), schema: NEW_POC.shape.nature },
  { key: 'dcuNo', label: label('dcuNo') },
  { key: 'hesPassword', label: label('hesPassword') },
  { key: 'interfaceType', label: label('interfaceType'), schema: METER_SHAPE.interfaceType },
  { key: 'meterTypeName', label: label('meterTypeName'), by: 'crud.importBy.modelName' },
];

/** The column each field of the four records comes from. */
const METER_COLUMN: Record<string, string> = {
  gridId: 'gridName',
  meterTypeId: 'meterTypeName',
  supplierId: 'supplierName',
  dcuId: 'dcuNo',
};
const POC_COLUMN: Record<string, string> = { pocNo: 'pocPoint', nature: 'pocNature' };

/** A meter's communication module made by an import: the device type of a meter's own module. */
const METER_MODULE_DEVICE_TYPE = 0;
const SYNCHRONIZED = 1;
const CHANGED = 2;

/** Rows written per statement when existing POCs get their meter. */
const LINK_CHUNK = 500;

type Stored<T> = T & { id: string; gridId: string };

/** An existing POC that gets the row's meter (and its consumer and DCU where it has none). */
interface PocLink {
  pocId: string;
  meterId: string;
  consumerId: string | null;
  dcuId: string | null;
}

export interface MeterImportPlan {
  consumers: Stored<ConsumerCreate>[];
  modules: Stored<ModuleCreate>[];
  meters: Record<string, unknown>[];
  pocs: Record<string, unknown>[];
  links: PocLink[];
}

/** Whether a row lies within the caller's scope, as a selected column. */
const inScope = (scope: Scope, grid: AnyPgColumn) => sql<boolean>`(${gridScope(scope, grid) ?? sql`true`})`;

const lower = (column: AnyPgColumn) => sql<string>`lower(${column})`;

const cellsOf = (rows: ImportRow[], key: string) => rows.map((r) => r.cells[key] ?? '');

/** What the archive already holds of the records a chunk of rows names: one query per kind. */
async function lookups(rows: ImportRow[], ctx: ImportContext) {
  const { db, scope } = ctx;
  const match = (column: AnyPgColumn) => (chunk: string[]) => inArray(lower(column), chunk);
  const [grids, tariffs, suppliers, dcus, types, consumers, modules, pocs, takenMeter] = await Promise.all([
    resolveGrids(db, cellsOf(rows, 'gridName'), scope),
    resolveTariffs(db, cellsOf(rows, 'tariffId'), scope),
    idsByKey(db, supplier, supplier.supplierName, supplier.id, cellsOf(rows, 'supplierName'), undefined),
    idsByKey(db, dcu, dcu.dcuNo, dcu.id, cellsOf(rows, 'dcuNo'), gridScope(scope, dcu.gridId)),
    byChunks(cellsOf(rows, 'meterTypeName'), (chunk) =>
      db
        .select({ key: lower(meterType.modelName), id: meterType.id, supplierId: meterType.supplierId })
        .from(meterType)
        .where(match(meterType.modelName)(chunk)),
    ),
    byChunks(cellsOf(rows, 'consumerCode'), (chunk) =>
      db
        .select({ key: lower(consumer.consumerCode), id: consumer.id, inScope: inScope(scope, consumer.gridId) })
        .from(consumer)
        .where(match(consumer.consumerCode)(chunk)),
    ),
    byChunks(cellsOf(rows, 'moduleNo'), (chunk) =>
      db
        .select({
          key: lower(commModule.moduleNo),
          id: commModule.id,
          inScope: inScope(scope, commModule.gridId),
          used: sql<boolean>`exists (select 1 from ${meter} where ${qualified(meter.moduleId)} = ${qualified(commModule.id)})`,
        })
        .from(commModule)
        .where(match(commModule.moduleNo)(chunk)),
    ),
    byChunks(cellsOf(rows, 'pocPoint'), (chunk) =>
      db
        .select({
          key: lower(poc.pocNo),
          id: poc.id,
          inScope: inScope(scope, poc.gridId),
          meterId: poc.meterId,
          consumerId: poc.consumerId,
        })
        .from(poc)
        .where(match(poc.pocNo)(chunk)),
    ),
    takenValues(db, meter, meter.devAddr, cellsOf(rows, 'devAddr')),
  ]);
  const byKey = <T extends { key: string }>(found: T[]) => new Map(found.map((r) => [r.key, r]));
  return {
    grids,
    tariffs,
    suppliers,
    dcus,
    types: byKey(types),
    consumers: byKey(consumers),
    modules: byKey(modules),
    pocs: byKey(pocs),
    takenMeter,
  };
}

/** A row's errors, each on the column it came from as the file heads it. */
class RowErrors {
  readonly list: ImportError[] = [];
  constructor(
    private readonly row: ImportRow,
    private readonly columnOf: ColumnOf,
  ) {}

  add(key: string, code: MessageKey, value = this.row.cells[key] ?? ''): void {
    this.list.push(importError(this.row.line, this.columnOf(key), code, value));
  }

  /** A schema's issues on fields named as in `keys` (default: the column of the same key). */
  schema(issues: readonly z.core.$ZodIssue[], keys: Record<string, string> = {}): void {
    const keyOf = (field: string) => keys[field] ?? field;
    // A reference already refused (an unknown grid) is not reported again as missing.
    const reported = new Set(this.list.map((e) => e.column));
    const fresh = issues.filter((issue) => !reported.has(this.columnOf(keyOf(String(issue.path[0]))).header));
    this.list.push(
      ...schemaErrors(fresh, this.row.line, (field) => this.columnOf(keyOf(field)), this.row.cells, keyOf),
    );
  }
}

/**
 * The meter import (spec §3's headers): one row places a meter and, where it names them, creates
 * or reuses its consumer (by code), its module (by number) and its POC (by number), all within the
 * caller's grid scope. Every rule of the single-record calls holds; the four tables are written on
 * one transaction, or nothing is. A consumer the file makes is reused by its later rows.
 */
export function meterImport(secrets: SecretBox): ImportDefinition<MeterImportPlan> {
  return {
    entity: 'meter',
    api: meterImportApi,
    columns: METER_IMPORT_COLUMNS,
    pass(ctx) {
      const { columnOf } = ctx;
      const repeated = duplicatesInFile(['devAddr', 'moduleNo', 'pocPoint'], columnOf);
      /** The lower-cased codes of the consumers this file makes: a consumer's later rows reuse it. */
      const madeConsumers = new FirstLines();
      return (rows) => checkChunk(rows, ctx, repeated(rows), madeConsumers, secrets);
    },
    async write(plan, writer) {
      // In the order the references point: a meter needs its module, a POC its consumer and meter.
      await writer.bulk(consumer, plan.consumers);
      await writer.bulk(commModule, plan.modules);
      await writer.bulk(meter, plan.meters as never);
      await writer.bulk(poc, plan.pocs as never);
      for (let i = 0; i < plan.links.length; i += LINK_CHUNK) {
        const chunk = plan.links.slice(i, i + LINK_CHUNK);
        const linked = await linkPocs(writer.tx, chunk);
        // A POC given a meter since the check: the job runs again and its check says which.
        if (linked !== chunk.length) throw new Error('a POC changed while the import was checked');
      }
      return plan.meters.length;
    },
  };
}

/**
 * The meter import's check of one chunk of rows — `errors` already holds its keys repeated from
 * earlier rows — and its plan when every row is valid.
 */
async function checkChunk(
  rows: ImportRow[],
  ctx: ImportContext,
  errors: ImportError[],
  madeConsumers: FirstLines,
  secrets: SecretBox,
): Promise<CheckResult<MeterImportPlan>> {
  const { columnOf } = ctx;
  const found = await lookups(rows, ctx);
  const plan: MeterImportPlan = { consumers: [], modules: [], meters: [], pocs: [], links: [] };
  /** The ids of the consumers this chunk makes, by lower-cased code. */
  const planned = new Map<string, string>();

  for (const row of rows) {
    const cell = (key: string) => row.cells[key] ?? '';
    const problems = new RowErrors(row, columnOf);
    const reference = (key: string, resolved: Parameters<typeof referenceError>[0], notFound: MessageKey) => {
      if (cell(key) === '') return undefined;
      const { id, error } = referenceError(resolved, cell(key), row.line, columnOf(key), notFound);
      if (error) problems.list.push(error);
      return id;
    };

    // The meter.
    const gridId = reference('gridName', found.grids, 'gridNotFound');
    const dcuId = reference('dcuNo', found.dcus, 'dcuNotFound') ?? null;
    const supplierId = reference('supplierName', found.suppliers, 'supplierNotFound') ?? null;
    const tariffId = reference('tariffId', found.tariffs, 'tariffNotFound') ?? null;
    const type = cell('meterTypeName') === '' ? undefined : found.types.get(cell('meterTypeName').toLowerCase());
    if (cell('meterTypeName') !== '' && !type) problems.add('meterTypeName', 'meterTypeNotFound');
    if (supplierId && type && supplierId !== type.supplierId) problems.add('supplierName', 'supplierNotOfMeterType');
    const meterInput = {
      devAddr: cell('devAddr'),
      gridId,
      meterTypeId: type?.id ?? null,
      supplierId: supplierId ?? type?.supplierId ?? null,
      interfaceType: cellValue(METER_SHAPE.interfaceType, cell('interfaceType')),
      meterBoxNo: cell('meterBoxNo'),
      dcuId,
      tariffId,
      hesPassword: cell('hesPassword'),
    };
    const parsedMeter = MeterCreateSchema.safeParse(meterInput);
    if (!parsedMeter.success) problems.schema(parsedMeter.error.issues, METER_COLUMN);
    if (cell('devAddr') !== '' && found.takenMeter(cell('devAddr'))) problems.add('devAddr', 'existed');
    const meterId = newId();

    // Its module: reused when it is the caller's and free, made otherwise.
    let moduleId: string | null = null;
    let newModule: Omit<ModuleCreate, 'gridId'> | undefined;
    const moduleNo = cell('moduleNo');
    if (moduleNo === '') {
      if (cell('simNo') !== '') problems.add('moduleNo', 'mandatory');
    } else {
      if (moduleNo.toLowerCase() === cell('devAddr').toLowerCase()) problems.add('devAddr', 'meterSnSameAsModule');
      const existing = found.modules.get(moduleNo.toLowerCase());
      // Module numbers are unique in the whole archive: one outside the scope cannot be made again.
      if (existing && !existing.inScope) problems.add('moduleNo', 'existed');
      else if (existing?.used) problems.add('moduleNo', 'moduleInUse');
      else if (existing) moduleId = existing.id;
      else {
        const parsed = NEW_MODULE.safeParse({
          moduleNo,
          simNo: cell('simNo'),
          deviceType: METER_MODULE_DEVICE_TYPE,
        });
        if (parsed.success) {
          newModule = parsed.data;
          moduleId = newId();
        } else problems.schema(parsed.error.issues);
      }
    }

    // Its consumer: reused by code when the caller reaches it, made otherwise.
    let consumerId: string | null = null;
    let newConsumer: Omit<ConsumerCreate, 'gridId'> | undefined;
    const code = cell('consumerCode');
    if (code === '') {
      if (cell('consumerName') !== '' || cell('identityNumber') !== '') problems.add('consumerCode', 'mandatory');
    } else {
      // A consumer reaches its meter only through a POC.
      if (cell('pocPoint') === '') problems.add('pocPoint', 'mandatory');
      const existing = found.consumers.get(code.toLowerCase());
      if (existing && !existing.inScope) problems.add('consumerCode', 'existed');
      else if (existing) consumerId = existing.id;
      else if (planned.has(code.toLowerCase())) consumerId = planned.get(code.toLowerCase()) ?? null;
      // Made by an earlier chunk: the writing pass has written it by now and found it above; the
      // checking pass writes nothing, so an id of its own serves its checks.
      else if (madeConsumers.get(code.toLowerCase()) !== undefined) consumerId = newId();
      else {
        const parsed = NEW_CONSUMER.safeParse({
          consumerCode: code,
          consumerName: cell('consumerName'),
          identityNumber: cell('identityNumber'),
        });
        if (parsed.success) {
          newConsumer = parsed.data;
          consumerId = newId();
        } else problems.schema(parsed.error.issues);
      }
    }

    // Its POC: a free one of the caller's gets the meter, a new one is made.
    let link: PocLink | undefined;
    let newPoc: Omit<PocCreate, 'gridId' | 'meterId'> | undefined;
    const pocNo = cell('pocPoint');
    if (pocNo === '') {
      if (cell('pocNature') !== '') problems.add('pocPoint', 'mandatory');
    } else {
      const existing = found.pocs.get(pocNo.toLowerCase());
      if (existing && !existing.inScope) problems.add('pocPoint', 'existed');
      else if (existing?.meterId) problems.add('pocPoint', 'pocHasMeter');
      else if (existing?.consumerId && consumerId && existing.consumerId !== consumerId)
        problems.add('pocPoint', 'pocOtherConsumer');
      else if (existing) link = { pocId: existing.id, meterId, consumerId, dcuId };
      else {
        const nature = cellValue(NEW_POC.shape.nature, cell('pocNature')) ?? 1;
        const parsed = NEW_POC.safeParse({ pocNo, nature, consumerId, dcuId, tariffId });
        if (parsed.success) newPoc = parsed.data;
        else problems.schema(parsed.error.issues, POC_COLUMN);
      }
    }

    if (problems.list.length) errors.push(...problems.list);
    else if (parsedMeter.success && gridId) {
      if (newConsumer && consumerId) {
        plan.consumers.push({ ...newConsumer, id: consumerId, gridId });
        planned.set(code.toLowerCase(), consumerId);
        madeConsumers.firstOrAdd(code.toLowerCase(), row.line);
      }
      if (newModule && moduleId) plan.modules.push({ ...newModule, id: moduleId, gridId });
      plan.meters.push(meterValues(secrets, parsedMeter.data, meterId, gridId, moduleId));
      if (newPoc) plan.pocs.push(pocValues(newPoc, newId(), gridId, meterId));
      if (link) plan.links.push(link);
    }
  }
  if (errors.length) return { errors: errors.sort((a, b) => a.line - b.line) };
  return { errors: [], plan };
}

function meterValues(
  secrets: SecretBox,
  v: MeterCreate,
  id: string,
  gridId: string,
  moduleId: string | null,
): Record<string, unknown> {
  const { hesPassword, ...rest } = v;
  return {
    ...rest,
    id,
    gridId,
    moduleId,
    commType: v.commType ?? '',
    interfaceType: v.interfaceType ?? '',
    hesPassword: hesPassword ? secrets.seal(hesPassword) : null,
  } satisfies EveryField<MeterCreate> & { id: string };
}

function pocValues(
  v: Omit<PocCreate, 'gridId' | 'meterId'>,
  id: string,
  gridId: string,
  meterId: string,
): Record<string, unknown> {
  const { registration, ...stored } = v;
  return {
    ...stored,
    id,
    gridId,
    meterId,
    registered: registration === 'registered',
    syncStatus: 0,
  } satisfies EveryField<Omit<PocCreate, 'registration'>> & { id: string; registered: boolean; syncStatus: number };
}

/**
 * Gives existing POCs their meter (and the consumer and DCU they lack) in one statement, only
 * while they still have no meter; a synchronized POC becomes changed. Answers how many it linked.
 */
async function linkPocs(tx: Parameters<ImportDefinition['write']>[1]['tx'], links: PocLink[]): Promise<number> {
  const values: SQL[] = links.map(
    (l) => sql`(${l.pocId}::varchar, ${l.meterId}::varchar, ${l.consumerId}::varchar, ${l.dcuId}::varchar)`,
  );
  const result = await tx.execute(sql`
    update poc set
      meter_id = v.meter_id,
      consumer_id = coalesce(poc.consumer_id, v.consumer_id),
      dcu_id = coalesce(poc.dcu_id, v.dcu_id),
      sync_status = case when poc.sync_status = ${SYNCHRONIZED} then ${CHANGED} else poc.sync_status end,
      update_time = now()
    from (values ${sql.join(values, sql`, `)}) as v(id, meter_id, consumer_id, dcu_id)
    where poc.id = v.id and poc.meter_id is null
    returning poc.id`);
  return (result as unknown as { rows: unknown[] }).rows.length;
}
