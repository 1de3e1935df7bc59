import {
  type Consumer,
  type ConsumerCreate,
  ConsumerCreateSchema,
  type ConsumerPoc,
  consumerApi,
  consumerEntity,
  consumerImportApi,
} from '@meterdesk/contracts';
import { and, asc, eq, getTableColumns, sql } from 'drizzle-orm';
import type { Executor } from '../../db/driver';
import { defineList, keyOrder } from '../../db/list';
import { type EveryField, iso, lookup } from '../../db/rows';
import { consumer, meter, poc, powerGrid, prepaidRecharge } from '../../db/schema';
import { GRID_TREE, gridScope } from '../../rbac/scope';
import { defineArchive } from './archive-kit';
import { gridColumn } from './import/grid-reference';
import { recordImport } from './import/record-import';
import { assertGridInScope, inUseBy } from './references';

type Row = typeof consumer.$inferSelect & { gridName: string };

export const CONSUMER_LIST = defineList({
  entity: consumerEntity,
  columns: {
    consumerCode: consumer.consumerCode,
    consumerName: consumer.consumerName,
    consumerType: consumer.consumerType,
    paymentMode: consumer.paymentMode,
    gridId: consumer.gridId,
    protected: consumer.protected,
  },
  trees: { gridId: GRID_TREE },
  defaultOrder: keyOrder({ consumerCode: consumer.consumerCode, id: consumer.id }),
  tieBreak: consumer.id,
});

export const consumerArchive = defineArchive({
  entity: consumerEntity,
  api: consumerApi,
  table: consumer,
  list: CONSUMER_LIST,
  select: (db: Executor) =>
    db
      .select({
        ...getTableColumns(consumer),
        gridName: lookup<string>(powerGrid.gridName, powerGrid.id, consumer.gridId),
      })
      .from(consumer),
  toRecord: (r: Row): Consumer => ({
    id: r.id,
    consumerCode: r.consumerCode,
    consumerName: r.consumerName,
    consumerType: r.consumerType as Consumer['consumerType'],
    special: r.special,
    paymentMode: r.paymentMode as Consumer['paymentMode'],
    protected: r.protected,
    gridId: r.gridId,
    gridName: r.gridName,
    identityNumber: r.identityNumber,
    gender: r.gender as Consumer['gender'],
    phone: r.phone,
    email: r.email,
    address: r.address,
    longitude: r.longitude,
    latitude: r.latitude,
    label: r.label,
    remark: r.remark,
    createTime: iso(r.createTime),
    updateTime: iso(r.updateTime),
  }),
  gridColumn: consumer.gridId,
  toValues: async (v, { tx, scope }) => {
    await assertGridInScope(tx, scope, v.gridId);
    return { ...v } satisfies EveryField<ConsumerCreate, typeof consumer.$inferInsert>;
  },
  inUse: (tx, ids) =>
    inUseBy(tx, ids, [
      { column: poc.consumerId, key: 'consumerHasPocs' },
      // Money's history stays: the ledger is append-only.
      { column: prepaidRecharge.consumerId, key: 'consumerHasRecharges' },
    ]),
  options: {
    searched: [consumer.consumerCode, consumer.consumerName],
    label: sql<string>`${consumer.consumerCode} || ' ' || ${consumer.consumerName}`,
  },
  related: async (db, record, scope) => {
    const rows = await db
      .select({
        id: poc.id,
        pocNo: poc.pocNo,
        nature: poc.nature,
        devAddr: sql<string>`coalesce(${meter.devAddr}, '')`,
      })
      .from(poc)
      .leftJoin(meter, eq(meter.id, poc.meterId))
      .where(and(eq(poc.consumerId, record.id), gridScope(scope, poc.gridId)))
      .orderBy(asc(poc.pocNo));
    return { pocs: rows.map((r) => ({ ...r, nature: r.nature as ConsumerPoc['nature'] })) };
  },
});

const label = (name: string) => `consumer.fields.${name}`;

/** Consumers from a workbook (spec §3's consumer columns and the rest of the form), placed by grid name or code. */
export const consumerImport = recordImport<ConsumerCreate>({
  entity: consumerEntity.name,
  api: consumerImportApi,
  create: ConsumerCreateSchema,
  table: consumer,
  unique: consumerArchive.unique,
  columns: [
    { key: 'consumerCode', label: label('consumerCode'), required: true, example: 'C-000001' },
    { key: 'consumerName', label: label('consumerName'), required: true, example: 'Jane Doe' },
    gridColumn(label('gridName')),
    ...(
      [
        'identityNumber',
        'address',
        'longitude',
        'latitude',
        'consumerType',
        'paymentMode',
        'special',
        'protected',
        'label',
        'gender',
        'phone',
        'email',
        'remark',
      ] as const
    ).map((key) => ({ key, label: label(key) })),
  ],
  values: (input, id) =>
    ({ ...input, id }) satisfies EveryField<ConsumerCreate, typeof consumer.$inferInsert> & { id: string },
});
