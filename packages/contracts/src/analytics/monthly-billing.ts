import { z } from 'zod';
import { CONSUMER_TYPES } from '../archive/enums';
import { defineEntity, field, storedRecord } from '../common/entity';
import { IdSchema } from '../common/ids';
import { equals, flag, subtree } from '../common/list';
import { TARIFF_RATES } from './energy';
import { ANALYTICS_AREA, analyticsApi, analyticsField, DevAddrFilterSchema, defineAnalytics } from './kit';

const PAGE = `${ANALYTICS_AREA}/monthlyBilling`;
export const MONTHLY_BILLING_RES = { page: PAGE, detail: `${PAGE}/detail`, export: `${PAGE}/export` } as const;

/** A meter's billing months on the detail page: the readings store keeps 36 months by default. */
export const MAX_BILLING_DETAIL_MONTHS = 36;

/** The tariff rates of the active import register, in the order the chart shows them. */

const label = (key: string) => `analyticsMonthly.billing.fields.${key}`;
const amount = (key: string) => field(z.number().nullable(), { label: label(key), widget: 'number' });
const count = (key: string) => field(z.number().int(), { label: label(key), widget: 'number' });
const monthField = () => field(z.string(), { label: 'analytics.fields.month', widget: 'text' });

/**
 * A billing month's freeze (reading_monthly: the registers at the midnight that ends the month): kWh,
 * kvarh and kW with three decimals, all null while the month is not frozen (this month, or a freeze
 * not yet read). `energy` is what the month billed: the total register minus the month before's.
 */
const billingFigures = {
  month: monthField(),
  frozen: field(z.boolean(), { label: label('frozen'), widget: 'switch' }),
  activeImport: amount('activeImport'),
  activeImportT1: amount('activeImportT1'),
  activeImportT2: amount('activeImportT2'),
  activeImportT3: amount('activeImportT3'),
  activeImportT4: amount('activeImportT4'),
  activeExport: amount('activeExport'),
  reactiveImport: amount('reactiveImport'),
  reactiveExport: amount('reactiveExport'),
  maxDemand: amount('maxDemand'),
  energy: amount('energy'),
};

const registerColumns = [
  { field: 'frozen', width: 100 },
  { field: 'activeImport', width: 150 },
  { field: 'activeImportT1', width: 130 },
  { field: 'activeImportT2', width: 130 },
  { field: 'activeImportT3', width: 130 },
  { field: 'activeImportT4', width: 130 },
  { field: 'activeExport', width: 150 },
  { field: 'reactiveImport', width: 150 },
  { field: 'reactiveExport', width: 150 },
  { field: 'maxDemand', sortable: true, width: 150 },
  { field: 'energy', sortable: true, width: 150 },
] as const;

/** One meter's freeze of the billing month, in the caller's grid scope; a meter not frozen has a row too. */
export const MonthlyBillingRowSchema = storedRecord(
  z.object({
    meterId: analyticsField.meterId(),
    devAddr: analyticsField.devAddr(),
    gridId: analyticsField.gridId(),
    gridName: analyticsField.gridName(),
    dcuId: analyticsField.dcuId(),
    dcuNo: analyticsField.dcuNo(),
    consumerType: analyticsField.consumerType(),
    ...billingFigures,
  }),
);
export type MonthlyBillingRow = z.infer<typeof MonthlyBillingRowSchema>;

export const monthlyBillingEntity = defineEntity({
  name: 'monthlyBilling',
  record: MonthlyBillingRowSchema,
  pagePath: PAGE,
  columns: [
    { field: 'devAddr', sortable: true, width: 150 },
    { field: 'gridName' },
    { field: 'dcuNo', width: 140 },
    { field: 'consumerType', width: 120 },
    ...registerColumns,
  ],
  filters: [
    subtree('gridId'),
    equals('dcuId', IdSchema),
    equals('devAddr', DevAddrFilterSchema),
    equals('consumerType', z.enum(CONSUMER_TYPES, 'invalidValue')),
    flag('frozen'),
  ],
  form: [],
  detail: ['devAddr', 'gridName', 'dcuNo', 'consumerType', 'frozen', 'activeImport', 'energy', 'maxDemand'],
});

/** One tariff rate's energy of the billing month over the scope. */
const ratePoint = z.object({
  rate: field(z.enum(TARIFF_RATES), { label: label('rate'), widget: 'text' }),
  energy: amount('energy'),
});

export const monthlyBillingAnalytics = defineAnalytics({
  entity: monthlyBillingEntity,
  // One billing month, the last one ended by default: this month is frozen only when it is over.
  period: { unit: 'month', maxMonths: 1, defaultMonths: 1, defaultEndsAgo: 1 },
  summary: z.object({
    meters: count('meters'),
    metersFrozen: count('metersFrozen'),
    metersNotFrozen: count('metersNotFrozen'),
    energy: amount('energy'),
    maxDemand: amount('maxDemand'),
  }),
  point: ratePoint,
  chart: { kind: 'bar', x: 'rate', xType: 'category', series: ['energy'] },
});
export const monthlyBillingApi = analyticsApi(monthlyBillingAnalytics);

/** One billing month of one meter. */
export const MonthlyBillingMonthRowSchema = storedRecord(
  z.object({ meterId: analyticsField.meterId(), ...billingFigures }),
);
export type MonthlyBillingMonthRow = z.infer<typeof MonthlyBillingMonthRowSchema>;

export const monthlyBillingDetailEntity = defineEntity({
  name: 'monthlyBillingDetail',
  record: MonthlyBillingMonthRowSchema,
  pagePath: MONTHLY_BILLING_RES.detail,
  columns: [{ field: 'month', sortable: true, width: 110 }, ...registerColumns],
  filters: [],
  form: [],
  detail: ['month', 'frozen', 'activeImport', 'energy', 'maxDemand'],
});

export const monthlyBillingDetailAnalytics = defineAnalytics({
  entity: monthlyBillingDetailEntity,
  period: { unit: 'month', maxMonths: MAX_BILLING_DETAIL_MONTHS, defaultMonths: 12, defaultEndsAgo: 1 },
  summary: z.object({
    devAddr: analyticsField.devAddr(),
    monthsFrozen: count('monthsFrozen'),
    energy: amount('energy'),
    maxDemand: amount('maxDemand'),
  }),
  point: z.object({
    month: monthField(),
    energyT1: amount('energyT1'),
    energyT2: amount('energyT2'),
    energyT3: amount('energyT3'),
    energyT4: amount('energyT4'),
  }),
  // Each month's billed energy split by its tariff rates.
  chart: {
    kind: 'bar',
    x: 'month',
    xType: 'month',
    series: ['energyT1', 'energyT2', 'energyT3', 'energyT4'],
    stacked: true,
  },
  fixed: { meterId: IdSchema },
});
export const monthlyBillingDetailApi = analyticsApi(monthlyBillingDetailAnalytics);
