import { z } from 'zod';
import { choice } from '../archive/enums';
import { defineEntity, field, storedRecord } from '../common/entity';
import { IdSchema } from '../common/ids';
import { contains, equals, subtree } from '../common/list';
import { codeText, nameText, optionalText } from '../common/validation';

/** How a rule charges besides the energy: a fixed amount per bill, or a percentage of the energy amount. */
export const CHARGE_MODES = ['fixed', 'percentage'] as const;
export type ChargeMode = (typeof CHARGE_MODES)[number];

/** The largest amount a rule names (numeric(12,2) holds it). */
export const MAX_RULE_AMOUNT = 9_999_999_999;
/** Tenant or solar meters one rule names at most. */
export const MAX_RULE_METERS = 200;

const cents = (v: number) => Math.abs(Math.round(v * 100) - v * 100) < 1e-6;

/** Money: non-negative, at most two decimals. */
const amount = () =>
  z.number('numberFormat').min(0, 'outOfRange').max(MAX_RULE_AMOUNT, 'outOfRange').refine(cents, 'twoDecimals');

/** A share in percent, 0 to 100 (spec: a percentage over 100 is refused), at most two decimals. */
const percent = () => z.number('numberFormat').min(0, 'outOfRange').max(100, 'outOfRange').refine(cents, 'twoDecimals');

const meterList = (name: string) =>
  field(
    z
      .array(IdSchema)
      .max(MAX_RULE_METERS, 'tooLong')
      .refine((ids) => new Set(ids).size === ids.length, 'ruleMeterTwice')
      .default([]),
    { label: `billingRule.fields.${name}`, widget: 'select', lookup: 'meters', multiple: true },
  );

const fields = {
  ruleNo: field(codeText(50), { widget: 'text', example: 'R001' }),
  /** spec §5, §8: 'Rule name already exists'. */
  ruleName: field(nameText(100), { widget: 'text', unique: true, existed: 'ruleNameExisted', example: 'Mall A' }),
  /** The rule and its bills belong to a grid node: the caller's grid scope reaches them. */
  gridId: field(IdSchema, { widget: 'treeSelect', lookup: 'gridTree' }),
  handlingFee: field(amount().default(0), { widget: 'number' }),
  /** Taxes in percent of the bill before taxes. */
  taxes: field(percent().default(0), { widget: 'number' }),
  /** A bill is rounded to a multiple of it (0.01, 0.1, 1); spec §5: it cannot be 0. */
  roundingBase: field(
    z
      .number('mandatory')
      .min(0, 'outOfRange')
      .max(1000, 'outOfRange')
      .refine((v) => v !== 0, 'roundingBaseZero'),
    { widget: 'number', help: 'billingRule.help.roundingBase' },
  ),
  chargeMode: choice('billingRule', 'chargeMode', 'chargeModes', CHARGE_MODES).default('fixed'),
  /** The fixed amount of each bill (charge mode fixed; required then). */
  fixedAmount: field(amount().nullable().default(null), { widget: 'number', help: 'billingRule.help.fixedAmount' }),
  /** The percentage of the energy amount (charge mode percentage; required then). */
  percentage: field(percent().nullable().default(null), { widget: 'number', help: 'billingRule.help.percentage' }),
  /** A shopping mall's main meter (a real meter, or a virtual one). */
  mainMeterId: field(IdSchema.nullable().default(null), {
    label: 'billingRule.fields.mainMeterId',
    widget: 'select',
    lookup: 'meters',
  }),
  tenantMeterIds: meterList('tenantMeterIds'),
  /** The meters of the solar plant (their export is what the rule credits). */
  solarMeterIds: meterList('solarMeterIds'),
  remark: field(optionalText(500), { widget: 'textarea' }),
};

const shown = (name: string) => field(z.string().nullable(), { label: `billingRule.fields.${name}`, widget: 'text' });
const count = () => field(z.number().int(), { widget: 'number' });

export const BillingRuleSchema = storedRecord(
  z.object({
    id: IdSchema,
    ...fields,
    gridName: shown('gridName'),
    mainDevAddr: shown('mainDevAddr'),
    /** The tenant and solar meters' serials, comma-separated, for the detail and the export. */
    tenantDevAddrs: shown('tenantDevAddrs'),
    solarDevAddrs: shown('solarDevAddrs'),
    tenantCount: count(),
    solarCount: count(),
    createTime: field(z.string(), { widget: 'datetime' }),
    updateTime: field(z.string(), { widget: 'datetime' }),
  }),
);
export type BillingRule = z.infer<typeof BillingRuleSchema>;

export const BillingRuleCreateSchema = z.strictObject(fields);
export type BillingRuleCreate = z.infer<typeof BillingRuleCreateSchema>;

export const billingRuleEntity = defineEntity({
  name: 'billingRule',
  record: BillingRuleSchema,
  create: BillingRuleCreateSchema,
  pagePath: '/paymentMGT/billingRules',
  columns: [
    { field: 'ruleName', sortable: true, width: 180 },
    { field: 'ruleNo', sortable: true, width: 130 },
    { field: 'chargeMode', width: 120 },
    { field: 'handlingFee', sortable: true, width: 120 },
    { field: 'taxes', width: 100 },
    { field: 'roundingBase', width: 120 },
    { field: 'mainDevAddr', width: 150 },
    { field: 'tenantCount', width: 110 },
    { field: 'solarCount', width: 110 },
    { field: 'gridName', width: 140 },
    { field: 'updateTime', sortable: true, width: 180 },
  ],
  filters: [
    contains('ruleName', 100),
    contains('ruleNo', 50),
    equals('chargeMode', z.enum(CHARGE_MODES, 'invalidValue')),
    subtree('gridId'),
  ],
  detail: [
    'ruleNo',
    'ruleName',
    'gridName',
    'handlingFee',
    'taxes',
    'roundingBase',
    'chargeMode',
    'fixedAmount',
    'percentage',
    'mainDevAddr',
    'tenantDevAddrs',
    'solarDevAddrs',
    'remark',
    'createTime',
    'updateTime',
  ],
});
export type BillingRuleListQuery = z.infer<typeof billingRuleEntity.listQuery>;
