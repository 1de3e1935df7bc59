import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  smallint,
  timestamp,
  uniqueIndex,
  varchar,
} from 'drizzle-orm/pg-core';
import { consumer, meter } from './archive';
import { createdAt, id, ref, updatedAt } from './columns';
import { powerGrid } from './grid';
import { deviceCommand } from './headend';
import { sysUser } from './people';

const money = () => numeric({ precision: 12, scale: 2, mode: 'number' });

/** A billing rule: what a bill adds to the energy, and the meters it bills (billing_rule_meter). */
export const billingRule = pgTable(
  'billing_rule',
  {
    id: id(),
    ruleNo: varchar({ length: 50 }).notNull(),
    ruleName: varchar({ length: 100 }).notNull(),
    gridId: ref()
      .notNull()
      .references(() => powerGrid.id),
    handlingFee: money().notNull().default(0),
    /** Percent. */
    taxes: numeric({ precision: 5, scale: 2, mode: 'number' }).notNull().default(0),
    roundingBase: doublePrecision().notNull(),
    /** fixed or percentage (contracts CHARGE_MODES). */
    chargeMode: varchar({ length: 16 }).notNull().default('fixed'),
    fixedAmount: money(),
    percentage: numeric({ precision: 5, scale: 2, mode: 'number' }),
    remark: varchar({ length: 500 }).notNull().default(''),
    createTime: createdAt(),
    updateTime: updatedAt(),
  },
  (t) => [
    uniqueIndex('billing_rule_name_uq').on(sql`lower(${t.ruleName})`),
    index('billing_rule_name_idx').on(t.ruleName, t.id),
    index('billing_rule_grid_idx').on(t.gridId, t.ruleName, t.id),
  ],
);

/** The meters a rule bills, by role: its main meter, its tenants, its solar plant; in the order chosen. */
export const billingRuleMeter = pgTable(
  'billing_rule_meter',
  {
    ruleId: ref()
      .notNull()
      .references(() => billingRule.id, { onDelete: 'cascade' }),
    /** main, tenant or solar. */
    role: varchar({ length: 8 }).notNull(),
    position: integer().notNull(),
    // A meter a rule bills is not deleted (meter.archive inUse): the rule would bill less without a word.
    meterId: ref()
      .notNull()
      .references(() => meter.id),
  },
  (t) => [primaryKey({ columns: [t.ruleId, t.role, t.position] }), index('billing_rule_meter_meter_idx').on(t.meterId)],
);

/**
 * A virtual meter's members: a meter row marked `virtual` whose active import is, per interval and
 * per day, the sum of its members' channels, each added or taken away (`sign`).
 */
export const virtualMeterMember = pgTable(
  'virtual_meter_member',
  {
    virtualId: ref()
      .notNull()
      .references(() => meter.id, { onDelete: 'cascade' }),
    // Likewise a member: the virtual meter's figures would change without a word.
    memberId: ref()
      .notNull()
      .references(() => meter.id),
    /** activeImport or activeExport (contracts MEMBER_CHANNELS). */
    channel: varchar({ length: 16 }).notNull(),
    /** +1 or −1. */
    sign: smallint().notNull(),
    position: integer().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.virtualId, t.memberId, t.channel] }),
    index('virtual_meter_member_member_idx').on(t.memberId),
  ],
);

/**
 * A billing report record (spec §3): what it was built from, its status (building, completed, failed)
 * and, once completed, its rows. Its grid node places it in the caller's grid scope: the rule's grid
 * for a report built from a rule, the chosen node otherwise.
 */
export const billingReport = pgTable(
  'billing_report',
  {
    id: id(),
    /** contracts REPORT_KINDS. */
    kind: varchar({ length: 24 }).notNull(),
    reportName: varchar({ length: 100 }).notNull(),
    // A report of a grid node that is deleted leaves with it.
    gridId: ref()
      .notNull()
      .references(() => powerGrid.id, { onDelete: 'cascade' }),
    // The rule may be deleted while its reports are kept: the report keeps its name in `conditions`.
    ruleId: ref().references(() => billingRule.id, { onDelete: 'set null' }),
    /** contracts ReportConditions, names included, as they were when it was asked for. */
    conditions: jsonb().notNull(),
    status: varchar({ length: 16 }).notNull().default('building'),
    progress: integer().notNull().default(0),
    jobId: varchar({ length: 40 }),
    createdBy: ref().references(() => sysUser.id, { onDelete: 'set null' }),
    createTime: createdAt(),
    generateTime: timestamp({ withTimezone: true, mode: 'date' }),
    deleteTime: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
    /** A message key when failed. */
    failure: varchar({ length: 64 }),
    /** The rows once completed (contracts ReportRow[]). */
    rows: jsonb(),
  },
  (t) => [
    index('billing_report_kind_idx').on(t.kind, t.createTime),
    index('billing_report_delete_idx').on(t.deleteTime),
  ],
);
const time = () => timestamp({ withTimezone: true, mode: 'date' });

/**
 * A prepaid meter's vending side: the last STS token identifier issued to it (a meter refuses a TID it
 * took, so each new token's TID is above this one), and what the meter last said of its credit. Its
 * row is locked while a recharge issues tokens, so two recharges of one meter never share a TID.
 */
export const prepaidMeter = pgTable('prepaid_meter', {
  meterId: ref()
    .primaryKey()
    .references(() => meter.id, { onDelete: 'cascade' }),
  lastTid: integer().notNull().default(0),
  /** Cents, from the meter's last answer about its credit; null before any. */
  creditCents: bigint({ mode: 'number' }),
  creditTime: time(),
  overdraftAllowed: boolean().notNull().default(false),
  /** Cents; 0: no limit. */
  overdraftLimitCents: bigint({ mode: 'number' }).notNull().default(0),
  /** contracts FriendlyTimeSchema. */
  friendlyTime: jsonb().notNull().default({ hours: [], weekdays: [], holidays: [] }),
});

/**
 * A recharge (spec §4: recharging → succeeded / failed). `client_key` is the browser's key of the
 * request: a repeat, a retry or a second request racing the first finds the row and answers it.
 */
export const prepaidRecharge = pgTable(
  'prepaid_recharge',
  {
    id: id(),
    clientKey: varchar({ length: 64 }).notNull(),
    meterId: ref()
      .notNull()
      .references(() => meter.id),
    consumerId: ref()
      .notNull()
      .references(() => consumer.id),
    gridId: ref().references(() => powerGrid.id),
    amountCents: bigint({ mode: 'number' }).notNull(),
    allowOverdraft: boolean().notNull(),
    state: varchar({ length: 12 }).notNull().default('recharging'),
    /** contracts RECHARGE_FAILURES, when failed. */
    failure: varchar({ length: 16 }),
    /** `{digits, tid, amountCents}` of each token, in the order entered. */
    tokens: jsonb().$type<{ digits: string; tid: number; amountCents: number }[]>().notNull(),
    commandId: ref().references(() => deviceCommand.id),
    meterCreditCents: bigint({ mode: 'number' }),
    createdBy: varchar({ length: 64 }).notNull(),
    createTime: createdAt(),
    finishTime: time(),
    deadline: time().notNull(),
  },
  (t) => [
    uniqueIndex('prepaid_recharge_client_key_uq').on(t.createdBy, t.clientKey),
    index('prepaid_recharge_meter_idx').on(t.meterId, t.createTime),
    index('prepaid_recharge_time_idx').on(t.createTime, t.id),
    index('prepaid_recharge_open_idx').on(t.commandId).where(sql`${t.state} = 'recharging'`),
  ],
);

/**
 * The consumers' money, append-only (a trigger refuses UPDATE and DELETE, migration 0046): a balance is
 * the sum of its consumer's entries. A recharge writes its credit; a failed delivery writes the reversal,
 * at most one per recharge (`prepaid_ledger_reversal_uq`).
 */
export const prepaidLedger = pgTable(
  'prepaid_ledger',
  {
    id: id(),
    consumerId: ref()
      .notNull()
      .references(() => consumer.id),
    meterId: ref()
      .notNull()
      .references(() => meter.id),
    rechargeId: ref()
      .notNull()
      .references(() => prepaidRecharge.id),
    /** credit or reversal. */
    kind: varchar({ length: 8 }).notNull(),
    /** Signed: a reversal is negative. */
    amountCents: bigint({ mode: 'number' }).notNull(),
    createTime: createdAt(),
  },
  (t) => [
    uniqueIndex('prepaid_ledger_entry_uq').on(t.rechargeId, t.kind),
    index('prepaid_ledger_consumer_idx').on(t.consumerId),
  ],
);

/**
 * The daily reconciliation's findings (issue 20): a prepaid meter whose relay or credit disagrees with
 * what its credit and ledger say. Each run replaces the findings of the one before.
 */
export const prepaidException = pgTable(
  'prepaid_exception',
  {
    id: id(),
    meterId: ref()
      .notNull()
      .references(() => meter.id, { onDelete: 'cascade' }),
    /** contracts PREPAID_EXCEPTION_KINDS. */
    kind: varchar({ length: 24 }).notNull(),
    gridId: ref(),
    meterCreditCents: bigint({ mode: 'number' }),
    ledgerCents: bigint({ mode: 'number' }).notNull(),
    relayState: smallint(),
    checkTime: time().notNull(),
  },
  (t) => [index('prepaid_exception_time_idx').on(t.checkTime, t.id)],
);
