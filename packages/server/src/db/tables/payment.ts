import { sql } from 'drizzle-orm';
import {
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
import { meter } from './archive';
import { createdAt, id, ref, updatedAt } from './columns';
import { powerGrid } from './grid';
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
