import { z } from 'zod';
import { EXPORT_FORMATS } from '../archive/archive-api';
import { IdSchema } from '../common/ids';
import { defineOperation, needs } from '../common/operation';
import { PageQuerySchema, pageOf } from '../common/paging';
import { FriendlyTimeSchema, TOKEN_RESULTS } from '../device/protocol';

/** The prepaid recharge page and its recharge button (permissions.ts). */
export const PREPAID_RES = { page: '/paymentMGT/prepaid', recharge: '/paymentMGT/prepaid/recharge' } as const;

/** spec §5: a recharge is an amount between 0 and 500 (0 itself credits nothing and is refused). */
export const MAX_RECHARGE_AMOUNT = 500;

/** spec §4: a recharge is recharging until its meter takes the tokens (succeeded) or refuses or misses them (failed). */
export const RECHARGE_STATES = ['recharging', 'succeeded', 'failed'] as const;
export type RechargeState = (typeof RECHARGE_STATES)[number];

/**
 * Why a recharge failed: the meter's token result, or `undelivered` (the meter did not answer before
 * the recharge's deadline: offline, or every attempt timed out).
 */
export const RECHARGE_FAILURES = [...TOKEN_RESULTS.filter((r) => r !== 'accepted'), 'undelivered'] as const;
export type RechargeFailure = (typeof RECHARGE_FAILURES)[number];

const cents = (v: number) => Math.abs(Math.round(v * 100) - v * 100) < 1e-6;
const moment = z.string().describe('ISO 8601 time');

export const RechargeAmountSchema = z
  .number('numberFormat')
  .gt(0, 'rechargeAmountRange')
  .max(MAX_RECHARGE_AMOUNT, 'rechargeAmountRange')
  .refine(cents, 'twoDecimals');

export const PrepaidFindSchema = z.strictObject({
  keyword: z.string().trim().min(1, 'mandatory').max(50, 'tooLong'),
});

/** A prepaid meter a search found: its consumer and where it is. */
export const PrepaidMatchSchema = z.object({
  meterId: IdSchema,
  devAddr: z.string(),
  consumerId: IdSchema,
  consumerCode: z.string(),
  consumerName: z.string(),
  gridName: z.string(),
});
export type PrepaidMatch = z.infer<typeof PrepaidMatchSchema>;

export const PrepaidAccountSchema = PrepaidMatchSchema.extend({
  /** The consumer's ledger: the sum of every credit and reversal, in the currency. */
  ledgerBalance: z.number(),
  /** The meter's own credit register as the last answer from it said; null before any. */
  meterCredit: z.number().nullable(),
  meterCreditTime: moment.nullable(),
  /** The main relay (class 70: 0 disconnected, 1 connected, 2 ready for reconnection); null: never learnt. */
  relayState: z.number().int().nullable(),
  online: z.boolean(),
  overdraftAllowed: z.boolean(),
  /** In the currency; 0: no limit. */
  overdraftLimit: z.number(),
  friendlyTime: FriendlyTimeSchema,
});
export type PrepaidAccount = z.infer<typeof PrepaidAccountSchema>;

export const RechargeRequestSchema = z.strictObject({
  meterId: IdSchema,
  amount: RechargeAmountSchema,
  /** The operator's own password: a wrong one counts toward the lock, as at login. */
  password: z.string().min(1, 'mandatory').max(100, 'tooLong'),
  allowOverdraft: z.boolean().default(false),
  /** Made by the browser for each recharge: the same key again answers the first recharge, which credits once. */
  clientKey: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/, 'invalidValue'),
});
export type RechargeRequest = z.infer<typeof RechargeRequestSchema>;

export const RechargeTokenSchema = z.object({
  /** 20 digits, as a keypad takes them. */
  digits: z.string(),
  tid: z.number().int(),
  amount: z.number(),
});

export const RechargeSchema = z.object({
  id: IdSchema,
  meterId: IdSchema,
  devAddr: z.string(),
  consumerCode: z.string(),
  consumerName: z.string(),
  amount: z.number(),
  allowOverdraft: z.boolean(),
  state: z.enum(RECHARGE_STATES),
  failure: z.enum(RECHARGE_FAILURES).nullable(),
  tokens: z.array(RechargeTokenSchema),
  /** The meter's credit after the tokens, when it took them. */
  meterCredit: z.number().nullable(),
  createdBy: z.string(),
  createTime: moment,
  finishTime: moment.nullable(),
  /** Failed and not taken by then: the recharge fails and is reversed. */
  deadline: moment,
});
export type Recharge = z.infer<typeof RechargeSchema>;

/** The history's columns, in order: the table and the export read them (labels `prepaid.fields.*`). */
export const RECHARGE_COLUMNS = [
  'createTime',
  'devAddr',
  'consumerCode',
  'consumerName',
  'amount',
  'state',
  'failure',
  'createdBy',
  'finishTime',
] as const satisfies readonly (keyof Recharge)[];
export const RECHARGE_SORTABLE = ['createTime', 'amount', 'devAddr', 'state'] as const;

export const RechargeHistoryQuerySchema = PageQuerySchema.extend({
  meterId: IdSchema.optional(),
  sortField: z.enum(RECHARGE_SORTABLE, 'invalidValue').optional(),
  sortOrder: z.enum(['ascend', 'descend'], 'invalidValue').optional(),
});
export type RechargeHistoryQuery = z.infer<typeof RechargeHistoryQuerySchema>;

export const RechargeExportSchema = RechargeHistoryQuerySchema.omit({ pageSize: true, curPage: true }).extend({
  format: z.enum(EXPORT_FORMATS, 'invalidValue').default('xlsx'),
});

/** Browser topic payload (`rechargeTopic`): one of the caller's recharges changed state. */
export const RechargeChangeSchema = RechargeSchema.pick({ id: true, meterId: true, state: true, failure: true });
export type RechargeChange = z.infer<typeof RechargeChangeSchema>;

/**
 * What the daily reconciliation finds: credit left but the relay open; no credit (and no overdraft) but
 * the relay closed outside the friendly time; the meter's credit above the ledger's balance (the meter
 * holds money never paid in: a reversed token it took after all, a credit entered twice).
 */
export const PREPAID_EXCEPTION_KINDS = ['creditButDisconnected', 'noCreditButConnected', 'balanceMismatch'] as const;
export type PrepaidExceptionKind = (typeof PREPAID_EXCEPTION_KINDS)[number];

export const PrepaidExceptionSchema = z.object({
  id: IdSchema,
  meterId: IdSchema,
  devAddr: z.string(),
  consumerCode: z.string(),
  consumerName: z.string(),
  kind: z.enum(PREPAID_EXCEPTION_KINDS),
  meterCredit: z.number().nullable(),
  ledgerBalance: z.number(),
  relayState: z.number().int().nullable(),
  checkTime: moment,
});
export type PrepaidException = z.infer<typeof PrepaidExceptionSchema>;

/** The exception list's columns, in order: the table and the export read them (labels `prepaid.exceptions.fields.*`). */
export const PREPAID_EXCEPTION_COLUMNS = [
  'devAddr',
  'consumerCode',
  'consumerName',
  'kind',
  'meterCredit',
  'ledgerBalance',
  'relayState',
  'checkTime',
] as const satisfies readonly (keyof PrepaidException)[];

export const PrepaidExceptionQuerySchema = PageQuerySchema;
export const PrepaidExceptionExportSchema = z.strictObject({
  format: z.enum(EXPORT_FORMATS, 'invalidValue').default('xlsx'),
});

const tag = 'prepaid';

export const prepaidApi = {
  find: defineOperation({
    path: '/prepaid/find',
    access: needs(PREPAID_RES.page),
    tag,
    summary:
      "prepaid: meters of prepay consumers within the caller's grid scope whose serial, consumer number or consumer name contains the keyword (at most 20)",
    request: PrepaidFindSchema,
    response: z.array(PrepaidMatchSchema),
  }),
  account: defineOperation({
    path: '/prepaid/account',
    access: needs(PREPAID_RES.page),
    tag,
    summary:
      "prepaid: a prepaid meter's account — the ledger's balance, the meter's credit as last read, relay, overdraft and friendly time; 404 outside the caller's scope, 400 notPrepaid",
    request: z.strictObject({ meterId: IdSchema }),
    response: PrepaidAccountSchema,
  }),
  recharge: defineOperation({
    path: '/prepaid/recharge',
    access: needs(PREPAID_RES.recharge),
    tag,
    summary:
      "prepaid: credits the consumer's ledger and sends the amount to the meter as STS tokens through the head-end; the recharge is recharging until the meter takes them (succeeded) or refuses them or misses its deadline (failed, and reversed by a ledger entry). The same clientKey answers the first recharge and credits once. Refused naming the field: amount (rechargeAmountRange, twoDecimals), password (passwordWrong; counts toward the lock), meterId (notPrepaid); 404 outside the caller's scope",
    request: RechargeRequestSchema,
    response: RechargeSchema,
    audit: 'add',
  }),
  detail: defineOperation({
    path: '/prepaid/recharge/detail',
    access: needs(PREPAID_RES.page),
    tag,
    summary: "prepaid: one recharge with its tokens (the receipt); 404 outside the caller's scope",
    request: z.strictObject({ id: IdSchema }),
    response: RechargeSchema,
  }),
  history: defineOperation({
    path: '/prepaid/recharge/list',
    access: needs(PREPAID_RES.page),
    tag,
    summary: "prepaid: recharges within the caller's grid scope (of one meter, if named), sorted and paged",
    request: RechargeHistoryQuerySchema,
    response: pageOf(RechargeSchema),
  }),
  export: defineOperation({
    path: '/prepaid/recharge/export',
    access: needs(PREPAID_RES.page),
    tag,
    summary: 'prepaid: the recharge history (of one meter, if named) as a spreadsheet or PDF',
    request: RechargeExportSchema,
    response: z.unknown(),
  }),
  exceptions: defineOperation({
    path: '/prepaid/exception/list',
    access: needs(PREPAID_RES.page),
    tag,
    summary:
      "prepaid: what the last daily reconciliation found within the caller's grid scope (credit but disconnected, no credit but connected outside the friendly time, meter credit above the ledger)",
    request: PrepaidExceptionQuerySchema,
    response: pageOf(PrepaidExceptionSchema),
  }),
  exportExceptions: defineOperation({
    path: '/prepaid/exception/export',
    access: needs(PREPAID_RES.page),
    tag,
    summary: "prepaid: the last reconciliation's exceptions within the caller's grid scope as a spreadsheet or PDF",
    request: PrepaidExceptionExportSchema,
    response: z.unknown(),
  }),
};
