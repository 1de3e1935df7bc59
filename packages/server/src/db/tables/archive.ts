import { sql } from 'drizzle-orm';
import {
  boolean,
  doublePrecision,
  type ExtraConfigColumn,
  index,
  integer,
  numeric,
  pgTable,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  varchar,
} from 'drizzle-orm/pg-core';
import { createdAt, id, ref, updatedAt } from './columns';
import { powerGrid } from './grid';
import { tariff } from './parameter';

/**
 * A trigram index, so that "contains" (a picker's keyword, a list's filter) finds a few rows among a
 * million without reading them all (pg_trgm, migration 0008). Tables of millions of rows only.
 */
const searchedByPart = (name: string, column: ExtraConfigColumn) => index(name).using('gin', column.op('gin_trgm_ops'));

/*
 * The archive: who is supplied (consumer), where (POC), by what (meter, module, DCU) and from
 * which make (supplier, meter type). Business keys are unique case-insensitively, as the
 * 'existed' checks see them. Records placed in the grid carry `grid_id`: the data scope and the
 * grid filter of every list go through it. Keys and passwords are stored sealed (SecretBox),
 * never in clear.
 */

const gridRef = () =>
  ref()
    .notNull()
    .references(() => powerGrid.id);
const money = () => numeric({ precision: 14, scale: 3, mode: 'number' });

export const supplier = pgTable(
  'supplier',
  {
    id: id(),
    supplierCode: varchar({ length: 50 }).notNull(),
    supplierName: varchar({ length: 100 }).notNull(),
    contact: varchar({ length: 50 }).notNull().default(''),
    phone: varchar({ length: 30 }).notNull().default(''),
    address: varchar({ length: 200 }).notNull().default(''),
    remark: varchar({ length: 500 }).notNull().default(''),
    createTime: createdAt(),
    updateTime: updatedAt(),
  },
  (t) => [
    uniqueIndex('supplier_code_uq').on(sql`lower(${t.supplierCode})`),
    uniqueIndex('supplier_name_uq').on(sql`lower(${t.supplierName})`),
  ],
);

export const meterType = pgTable(
  'meter_type',
  {
    id: id(),
    modelName: varchar({ length: 100 }).notNull(),
    supplierId: ref()
      .notNull()
      .references(() => supplier.id),
    /** 1P2W, 3P3W or 3P4W. */
    wiring: varchar({ length: 8 }).notNull(),
    /** primary or secondary side metering. */
    side: varchar({ length: 16 }).notNull(),
    ratedVoltage: numeric({ precision: 10, scale: 2, mode: 'number' }),
    ratedCurrent: numeric({ precision: 10, scale: 2, mode: 'number' }),
    maxCurrent: numeric({ precision: 10, scale: 2, mode: 'number' }),
    accuracyClass: varchar({ length: 16 }).notNull().default(''),
    commTypes: text().array().notNull().default(sql`'{}'::text[]`),
    remark: varchar({ length: 500 }).notNull().default(''),
    createTime: createdAt(),
    updateTime: updatedAt(),
  },
  (t) => [
    uniqueIndex('meter_type_name_uq').on(sql`lower(${t.modelName})`),
    index('meter_type_supplier_idx').on(t.supplierId),
  ],
);

export const consumer = pgTable(
  'consumer',
  {
    id: id(),
    consumerCode: varchar({ length: 50 }).notNull(),
    consumerName: varchar({ length: 100 }).notNull(),
    identityNumber: varchar({ length: 50 }).notNull().default(''),
    address: varchar({ length: 200 }).notNull().default(''),
    longitude: doublePrecision(),
    latitude: doublePrecision(),
    /** residential, commercial or industrial. */
    consumerType: varchar({ length: 16 }).notNull(),
    special: boolean().notNull().default(false),
    /** prepay or postpay. */
    paymentMode: varchar({ length: 8 }).notNull(),
    label: varchar({ length: 50 }).notNull().default(''),
    gender: varchar({ length: 8 }).notNull().default(''),
    email: varchar({ length: 100 }).notNull().default(''),
    phone: varchar({ length: 30 }).notNull().default(''),
    /** Life support or medical equipment: a disconnect must never reach this consumer unnoticed. */
    protected: boolean().notNull().default(false),
    remark: varchar({ length: 500 }).notNull().default(''),
    gridId: gridRef(),
    createTime: createdAt(),
    updateTime: updatedAt(),
  },
  (t) => [
    uniqueIndex('consumer_code_uq').on(sql`lower(${t.consumerCode})`),
    // The list's default order, in the whole archive and within each grid node (keyset paging).
    index('consumer_code_idx').on(t.consumerCode, t.id),
    index('consumer_grid_idx').on(t.gridId, t.consumerCode, t.id),
    index('consumer_name_idx').on(t.consumerName),
    searchedByPart('consumer_code_trgm', t.consumerCode),
    searchedByPart('consumer_name_trgm', t.consumerName),
  ],
);

export const dcu = pgTable(
  'dcu',
  {
    id: id(),
    dcuNo: varchar({ length: 50 }).notNull(),
    dcuName: varchar({ length: 100 }).notNull().default(''),
    model: varchar({ length: 50 }).notNull().default(''),
    supplierId: ref().references(() => supplier.id),
    address: varchar({ length: 200 }).notNull().default(''),
    longitude: doublePrecision(),
    latitude: doublePrecision(),
    llsLevel: smallint().notNull().default(0),
    llsKey: text(),
    hlsAuthKey: text(),
    hlsEncKey: text(),
    hlsAuthEncKey: text(),
    /** Meter serials the DCU must not collect. */
    blacklist: text().array().notNull().default(sql`'{}'::text[]`),
    taskEnabled: boolean().notNull().default(false),
    taskGroup: smallint(),
    minCycleMinutes: integer(),
    collectPeriodMinutes: integer(),
    reportPeriodMinutes: integer(),
    /** `HH:mm` of the day. */
    taskStart: varchar({ length: 5 }).notNull().default(''),
    taskEnd: varchar({ length: 5 }).notNull().default(''),
    maxSupplementDays: integer(),
    executionOffsetMinutes: integer(),
    remark: varchar({ length: 500 }).notNull().default(''),
    gridId: gridRef(),
    createTime: createdAt(),
    updateTime: updatedAt(),
  },
  (t) => [
    uniqueIndex('dcu_no_uq').on(sql`lower(${t.dcuNo})`),
    index('dcu_no_idx').on(t.dcuNo, t.id),
    index('dcu_grid_idx').on(t.gridId, t.dcuNo, t.id),
  ],
);

export const commModule = pgTable(
  'comm_module',
  {
    id: id(),
    moduleNo: varchar({ length: 50 }).notNull(),
    commAddress: varchar({ length: 100 }).notNull().default(''),
    simNo: varchar({ length: 30 }).notNull().default(''),
    /** Spec device type 0–5. */
    deviceType: smallint().notNull(),
    /** client, server or webService. */
    workingMode: varchar({ length: 16 }).notNull(),
    remark: varchar({ length: 500 }).notNull().default(''),
    gridId: gridRef(),
    createTime: createdAt(),
    updateTime: updatedAt(),
  },
  (t) => [
    uniqueIndex('comm_module_no_uq').on(sql`lower(${t.moduleNo})`),
    index('comm_module_no_idx').on(t.moduleNo, t.id),
    index('comm_module_grid_idx').on(t.gridId, t.moduleNo, t.id),
    searchedByPart('comm_module_no_trgm', t.moduleNo),
  ],
);

export const meter = pgTable(
  'meter',
  {
    id: id(),
    devAddr: varchar({ length: 50 }).notNull(),
    meterTypeId: ref().references(() => meterType.id),
    supplierId: ref().references(() => supplier.id),
    /** Spec meter status 0 warehouse … 5 maintenance. */
    status: smallint().notNull().default(0),
    commType: varchar({ length: 16 }).notNull().default(''),
    authType: varchar({ length: 8 }).notNull().default('none'),
    /** 0 none, 1 authentication only, 2 encryption only, 3 both. */
    securityType: smallint().notNull().default(0),
    dataChannel: varchar({ length: 50 }).notNull().default(''),
    interfaceType: varchar({ length: 16 }).notNull().default(''),
    virtual: boolean().notNull().default(false),
    meterBoxNo: varchar({ length: 50 }).notNull().default(''),
    moduleId: ref().references(() => commModule.id),
    dcuId: ref().references(() => dcu.id),
    tariffId: ref().references(() => tariff.id),
    hesPassword: text(),
    longitude: doublePrecision(),
    latitude: doublePrecision(),
    remark: varchar({ length: 500 }).notNull().default(''),
    gridId: gridRef(),
    createTime: createdAt(),
    updateTime: updatedAt(),
  },
  (t) => [
    uniqueIndex('meter_dev_addr_uq').on(sql`lower(${t.devAddr})`),
    // A module serves one meter.
    uniqueIndex('meter_module_uq').on(t.moduleId),
    // The list's default order and its indexed sorts (METER_LIST), in the whole archive and within
    // each grid node: keyset paging reads them at any depth.
    index('meter_dev_addr_idx').on(t.devAddr, t.id),
    searchedByPart('meter_dev_addr_trgm', t.devAddr),
    index('meter_grid_idx').on(t.gridId, t.devAddr, t.id),
    index('meter_status_idx').on(t.status, t.id),
    index('meter_grid_status_idx').on(t.gridId, t.status, t.id),
    index('meter_update_time_idx').on(t.updateTime, t.id),
    index('meter_grid_update_time_idx').on(t.gridId, t.updateTime, t.id),
    index('meter_dcu_idx').on(t.dcuId),
    // A collection task's device set filters on these (device-set.ts): a million meters are not scanned.
    index('meter_supplier_idx').on(t.supplierId),
    index('meter_meter_type_idx').on(t.meterTypeId),
    index('meter_tariff_idx').on(t.tariffId),
    // The map's covering position index is a GiST index in migration 0009 (drizzle cannot declare INCLUDE).
    // The map's list of meters it cannot place by their own coordinates (gis-find.ts), by serial.
    index('meter_unplaced_idx').on(t.devAddr, t.id).where(sql`${t.latitude} is null or ${t.longitude} is null`),
  ],
);

/** Every status change of a meter: from, to, who and why. */
export const meterStatusHistory = pgTable(
  'meter_status_history',
  {
    id: id(),
    meterId: ref()
      .notNull()
      .references(() => meter.id, { onDelete: 'cascade' }),
    fromStatus: smallint().notNull(),
    toStatus: smallint().notNull(),
    reason: varchar({ length: 500 }).notNull().default(''),
    username: varchar({ length: 50 }).notNull(),
    time: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('meter_status_history_meter_idx').on(t.meterId, t.time)],
);

export const poc = pgTable(
  'poc',
  {
    id: id(),
    pocNo: varchar({ length: 50 }).notNull(),
    /** Spec POC nature 1–6. */
    nature: smallint().notNull(),
    ctRatio: numeric({ precision: 10, scale: 2, mode: 'number' }).notNull().default(1),
    ptRatio: numeric({ precision: 10, scale: 2, mode: 'number' }).notNull().default(1),
    capacity: numeric({ precision: 12, scale: 2, mode: 'number' }),
    /** 0 not synchronized, 1 synchronized, 2 changed. */
    syncStatus: smallint().notNull().default(0),
    registered: boolean().notNull().default(false),
    tariffId: ref().references(() => tariff.id),
    taskGroupId: smallint(),
    dcuId: ref().references(() => dcu.id),
    consumerId: ref().references(() => consumer.id),
    /** The meter measuring it now; replacement keeps the earlier ones in poc_replacement. */
    meterId: ref().references(() => meter.id),
    remark: varchar({ length: 500 }).notNull().default(''),
    gridId: gridRef(),
    createTime: createdAt(),
    updateTime: updatedAt(),
  },
  (t) => [
    uniqueIndex('poc_no_uq').on(sql`lower(${t.pocNo})`),
    searchedByPart('poc_no_trgm', t.pocNo),
    // A meter measures one POC at a time.
    uniqueIndex('poc_meter_uq').on(t.meterId),
    index('poc_no_idx').on(t.pocNo, t.id),
    index('poc_grid_idx').on(t.gridId, t.pocNo, t.id),
    index('poc_consumer_idx').on(t.consumerId),
    index('poc_dcu_idx').on(t.dcuId),
    index('poc_tariff_idx').on(t.tariffId),
  ],
);

/** A meter replaced at a POC (shown as PRE1, PRE2, … in the POC's history). */
export const pocReplacement = pgTable(
  'poc_replacement',
  {
    id: id(),
    pocId: ref()
      .notNull()
      .references(() => poc.id, { onDelete: 'cascade' }),
    seq: integer().notNull(),
    oldMeterId: ref(),
    oldDevAddr: varchar({ length: 50 }).notNull(),
    newMeterId: ref(),
    newDevAddr: varchar({ length: 50 }).notNull(),
    oldActiveTotal: money(),
    oldReactiveTotal: money(),
    newActiveTotal: money(),
    newReactiveTotal: money(),
    changer: varchar({ length: 50 }).notNull(),
    changeTime: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('poc_replacement_seq_uq').on(t.pocId, t.seq)],
);
