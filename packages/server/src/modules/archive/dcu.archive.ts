import {
  DCU_KEYS,
  DCU_TASK_FIELDS,
  type Dcu,
  type DcuCreate,
  DcuCreateSchema,
  type DcuKey,
  type DcuKeys,
  dcuApi,
  dcuEntity,
  dcuImportApi,
  MESSAGES,
  parseBlacklist,
  RESULT,
} from '@meterdesk/contracts';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { SecretBox } from '../../crypto/secret-box';
import type { Db, Executor } from '../../db/driver';
import { defineList, keyOrder } from '../../db/list';
import { anyRow, type EveryField, iso, lookup, qualified } from '../../db/rows';
import { dcu, meter, poc, powerGrid, supplier } from '../../db/schema';
import { ApiError, fieldError, notFound } from '../../errors/api-error';
import type { SessionContext } from '../../http/operation';
import { GRID_TREE, gridScope, resolveScope, type Scope } from '../../rbac/scope';
import { type ArchiveService, defineArchive, type WriteContext } from './archive-kit';
import { gridColumn } from './import/grid-reference';
import { type FieldIssue, keyReference, recordImport } from './import/record-import';
import { GRID, requireInScope } from './in-scope';
import { inUseBy } from './references';

const dcuGridName = lookup<string>(powerGrid.gridName, powerGrid.id, dcu.gridId);

const selectDcus = (db: Executor) =>
  db
    .select({
      dcu,
      supplierName: lookup(supplier.supplierName, supplier.id, dcu.supplierId),
      gridName: dcuGridName,
      meterCount:
        sql<number>`(select count(*) from ${meter} where ${qualified(meter.dcuId)} = ${qualified(dcu.id)})`.mapWith(
          Number,
        ),
    })
    .from(dcu);

type Row = Awaited<ReturnType<typeof selectDcus>>[number];

export const DCU_LIST = defineList({
  entity: dcuEntity,
  columns: {
    dcuNo: dcu.dcuNo,
    dcuName: dcu.dcuName,
    gridId: dcu.gridId,
    gridName: dcuGridName,
  },
  trees: { gridId: GRID_TREE },
  defaultOrder: keyOrder({ dcuNo: dcu.dcuNo, id: dcu.id }),
  tieBreak: dcu.id,
});

/** The meters of the caller's scope among `serials`, by lower-cased serial, as the archive spells them. */
async function metersByLower(tx: Executor, scope: Scope, serials: string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const wanted = [...new Set(serials.map((s) => s.toLowerCase()))];
  for (let i = 0; i < wanted.length; i += 1000) {
    const rows = await tx
      .select({ devAddr: meter.devAddr })
      .from(meter)
      .where(and(inArray(sql`lower(${meter.devAddr})`, wanted.slice(i, i + 1000)), gridScope(scope, meter.gridId)));
    for (const { devAddr } of rows) found.set(devAddr.toLowerCase(), devAddr);
  }
  return found;
}

/** The blacklist's serials as the archive spells them; refuses the first that is no meter the caller reaches. */
async function knownMeters(tx: Executor, scope: Scope, text: string): Promise<string[]> {
  const serials = parseBlacklist(text);
  if (serials.length === 0) return [];
  const byLower = await metersByLower(tx, scope, serials);
  const unknown = serials.find((s) => !byLower.has(s.toLowerCase()));
  if (unknown !== undefined) {
    const value = unknown.slice(0, 50);
    throw new ApiError(RESULT.badRequest, 'blacklistUnknownMeter', {
      issues: [
        {
          field: 'blacklist',
          key: 'blacklistUnknownMeter',
          message: MESSAGES.blacklistUnknownMeter.replace('{{value}}', value),
          params: { value },
        },
      ],
    });
  }
  return [...new Set(serials.map((s) => byLower.get(s.toLowerCase()) as string))];
}

/** The first cross-field rule of the task parameters that `v` breaks. */
function taskIssue(v: DcuCreate): FieldIssue | undefined {
  if (v.taskEnabled) {
    if (v.collectPeriodMinutes === null) return { field: 'collectPeriodMinutes', key: 'mandatory' };
    if (v.reportPeriodMinutes === null) return { field: 'reportPeriodMinutes', key: 'mandatory' };
  }
  if (v.taskStart !== '' && v.taskEnd === '') return { field: 'taskEnd', key: 'mandatory' };
  if (v.taskEnd !== '' && v.taskStart === '') return { field: 'taskStart', key: 'mandatory' };
  // A window may cross midnight (22:00 → 02:00 runs through the night); only an empty one says nothing.
  if (v.taskStart !== '' && v.taskEnd === v.taskStart) return { field: 'taskEnd', key: 'taskWindowEmpty' };
  return undefined;
}

function checkTask(v: DcuCreate): void {
  const issue = taskIssue(v);
  if (issue) throw fieldError(RESULT.badRequest, issue.field, issue.key);
}

/** A key as stored: a new one sealed, an empty one keeps what was stored (none on add). */
function sealedKey(secrets: SecretBox, v: DcuCreate, key: DcuKey, before: Row | undefined): string | null {
  const given = v[key];
  if (given !== '') return secrets.seal(given);
  return before?.dcu[key] ?? null;
}

/**
 * DCUs, in the grid scope of their `grid_id`. Their LLS and HLS keys are sealed with the secret box:
 * no call answers them but *reveal*, and the record only says which are set.
 */
export const dcuArchive = (secrets: SecretBox) =>
  defineArchive({
    entity: dcuEntity,
    api: dcuApi,
    table: dcu,
    list: DCU_LIST,
    select: selectDcus,
    gridColumn: dcu.gridId,
    toRecord: ({ dcu: r, supplierName, gridName, meterCount }: Row): Dcu => ({
      id: r.id,
      dcuNo: r.dcuNo,
      dcuName: r.dcuName,
      model: r.model,
      supplierId: r.supplierId,
      supplierName: supplierName ?? '',
      gridId: r.gridId,
      gridName,
      address: r.address,
      longitude: r.longitude,
      latitude: r.latitude,
      llsLevel: r.llsLevel,
      llsKeySet: r.llsKey !== null,
      hlsAuthKeySet: r.hlsAuthKey !== null,
      hlsEncKeySet: r.hlsEncKey !== null,
      hlsAuthEncKeySet: r.hlsAuthEncKey !== null,
      blacklist: r.blacklist.join('\n'),
      meterCount,
      taskEnabled: r.taskEnabled,
      taskGroup: r.taskGroup,
      minCycleMinutes: r.minCycleMinutes,
      collectPeriodMinutes: r.collectPeriodMinutes,
      reportPeriodMinutes: r.reportPeriodMinutes,
      taskStart: r.taskStart,
      taskEnd: r.taskEnd,
      maxSupplementDays: r.maxSupplementDays,
      executionOffsetMinutes: r.executionOffsetMinutes,
      remark: r.remark,
      createTime: iso(r.createTime),
      updateTime: iso(r.updateTime),
    }),
    toValues: async (v: DcuCreate, { tx, scope, before }: WriteContext<Row>) => {
      checkTask(v);
      await requireInScope(tx, scope, GRID, v.gridId, 'gridId', 'gridNotFound');
      if (v.supplierId !== null && !(await anyRow(tx, supplier, eq(supplier.id, v.supplierId)))) {
        throw fieldError(RESULT.badRequest, 'supplierId', 'supplierNotFound');
      }
      return {
        ...v,
        blacklist: await knownMeters(tx, scope, v.blacklist),
        llsKey: sealedKey(secrets, v, 'llsKey', before),
        hlsAuthKey: sealedKey(secrets, v, 'hlsAuthKey', before),
        hlsEncKey: sealedKey(secrets, v, 'hlsEncKey', before),
        hlsAuthEncKey: sealedKey(secrets, v, 'hlsAuthEncKey', before),
      } satisfies EveryField<DcuCreate, typeof dcu.$inferInsert>;
    },
    inUse: (tx, ids) =>
      inUseBy(tx, ids, [
        { column: meter.dcuId, key: 'dcuInUse' },
        { column: poc.dcuId, key: 'dcuInUse' },
      ]),
    options: {
      searched: [dcu.dcuNo, dcu.dcuName],
      label: sql<string>`case when ${dcu.dcuName} = '' then ${dcu.dcuNo} else ${dcu.dcuNo} || ' ' || ${dcu.dcuName} end`,
      members: { dcuNo: dcu.dcuNo },
    },
  });

export type DcuService = ArchiveService<typeof dcuEntity, Row, Dcu, DcuCreate, 'dcuNo'>;

/** *Reveal*: a DCU's keys in clear, within the caller's scope (404 outside it). */
export class DcuKeyReveal {
  constructor(
    private readonly db: Db,
    private readonly secrets: SecretBox,
    private readonly dcus: DcuService,
  ) {}

  /** The keys, empty where none is stored, and the DCU's number for the operation log. */
  async reveal(id: string, session: SessionContext): Promise<{ dcuNo: string; keys: DcuKeys }> {
    const scope = await resolveScope(this.db, session.userId);
    const [row] = await this.db
      .select()
      .from(dcu)
      .where(and(eq(dcu.id, id), this.dcus.scopeCondition(scope)));
    if (!row) throw notFound();
    const keys = Object.fromEntries(
      DCU_KEYS.map((key) => {
        const sealed = row[key];
        return [key, sealed === null ? '' : this.secrets.open(sealed)];
      }),
    ) as DcuKeys;
    return { dcuNo: row.dcuNo, keys };
  }
}

const label = (name: string) => `dcu.fields.${name}`;

/**
 * DCUs from a workbook, placed by grid name or code, their supplier by name; every key sealed on
 * its way in, and each blacklisted meter one the caller reaches.
 */
export const dcuImport = (secrets: SecretBox) =>
  recordImport<DcuCreate>({
    entity: dcuEntity.name,
    api: dcuImportApi,
    create: DcuCreateSchema,
    table: dcu,
    unique: dcuArchive(secrets).unique,
    columns: [
      { key: 'dcuNo', label: label('dcuNo'), required: true, example: 'DCU0001' },
      { key: 'dcuName', label: label('dcuName') },
      { key: 'model', label: label('model') },
      {
        key: 'supplierName',
        label: label('supplierName'),
        by: 'crud.importBy.name',
        field: 'supplierId',
        resolve: keyReference({ table: supplier, keyColumn: supplier.supplierName, idColumn: supplier.id }),
        notFound: 'supplierNotFound',
      },
      gridColumn(label('gridName')),
      ...(
        [
          'address',
          'longitude',
          'latitude',
          'llsLevel',
          ...DCU_KEYS,
          'blacklist',
          ...DCU_TASK_FIELDS,
          'remark',
        ] as const
      ).map((key) => ({ key, label: label(key) })),
    ],
    rules: async (rows, ctx) => {
      const known = await metersByLower(
        ctx.db,
        ctx.scope,
        rows.flatMap((r) => parseBlacklist(r.cells.blacklist ?? '')),
      );
      return (input) => {
        const task = taskIssue(input);
        if (task) return { issues: [task] };
        const serials = parseBlacklist(input.blacklist);
        const unknown = serials.find((serial) => !known.has(serial.toLowerCase()));
        if (unknown !== undefined) return { issues: [{ field: 'blacklist', key: 'meterNotFound', value: unknown }] };
        const spelled = [...new Set(serials.map((serial) => known.get(serial.toLowerCase()) as string))];
        return { input: { ...input, blacklist: spelled.join('\n') } };
      };
    },
    values: (input, id) =>
      ({
        ...input,
        id,
        blacklist: parseBlacklist(input.blacklist),
        llsKey: sealedKey(secrets, input, 'llsKey', undefined),
        hlsAuthKey: sealedKey(secrets, input, 'hlsAuthKey', undefined),
        hlsEncKey: sealedKey(secrets, input, 'hlsEncKey', undefined),
        hlsAuthEncKey: sealedKey(secrets, input, 'hlsAuthEncKey', undefined),
      }) satisfies EveryField<DcuCreate, typeof dcu.$inferInsert> & { id: string },
  });
