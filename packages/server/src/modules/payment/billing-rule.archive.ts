import {
  type BillingRuleCreate,
  billingRuleApi,
  billingRuleEntity,
  type MessageKey,
  RESULT,
} from '@meterdesk/contracts';
import { eq, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/driver';
import { type EveryField, lookup, qualified } from '../../db/rows';
import { billingRule, billingRuleMeter, meter, powerGrid } from '../../db/schema';
import { fieldError } from '../../errors/api-error';
import { GRID_TREE } from '../../rbac/scope';
import { defineArchive, type ShownRow } from '../archive/archive-kit';
import { assertGridInScope } from '../archive/references';
import { metersInScope } from './meters-in-scope';

const ROLES = { main: 'mainMeterId', tenant: 'tenantMeterIds', solar: 'solarMeterIds' } as const;
type Role = keyof typeof ROLES;

/** The rule's meters of one role, in the order chosen. */
const ofRole = (role: Role) =>
  sql`from ${billingRuleMeter} r join ${meter} m on m.id = r.meter_id
      where r.rule_id = ${qualified(billingRule.id)} and r.role = ${role}`;
const ids = (role: Role) =>
  sql<string[]>`coalesce((select json_agg(r.meter_id order by r.position) ${ofRole(role)}), '[]'::json)`;
const serials = (role: Role) => sql<string>`(select string_agg(m.dev_addr, ', ' order by r.position) ${ofRole(role)})`;
const count = (role: Role) => sql<number>`(select count(*) ${ofRole(role)})`.mapWith(Number);

const shown = {
  gridName: lookup<string>(powerGrid.gridName, powerGrid.id, billingRule.gridId),
  mainMeterId: sql<string | null>`(select r.meter_id ${ofRole('main')} limit 1)`,
  mainDevAddr: serials('main'),
  tenantMeterIds: ids('tenant'),
  tenantDevAddrs: serials('tenant'),
  tenantCount: count('tenant'),
  solarMeterIds: ids('solar'),
  solarDevAddrs: serials('solar'),
  solarCount: count('solar'),
} satisfies Record<string, SQL>;
type Row = ShownRow<typeof billingRule, typeof shown>;

const metersOf = (v: BillingRuleCreate) =>
  [
    ...(v.mainMeterId ? [{ role: 'main' as const, id: v.mainMeterId, field: 'mainMeterId' }] : []),
    ...v.tenantMeterIds.map((id, i) => ({ role: 'tenant' as const, id, field: `tenantMeterIds.${i}` })),
    ...v.solarMeterIds.map((id, i) => ({ role: 'solar' as const, id, field: `solarMeterIds.${i}` })),
  ] satisfies { role: Role; id: string; field: string }[];

/** The amount the charge mode names must be given; the other one is not kept. */
function chargeOf(v: BillingRuleCreate) {
  const missing = (field: string, key: MessageKey = 'ruleAmountMissing') => fieldError(RESULT.badRequest, field, key);
  if (v.chargeMode === 'fixed') {
    if (v.fixedAmount === null) throw missing('fixedAmount');
    return { fixedAmount: v.fixedAmount, percentage: null };
  }
  if (v.percentage === null) throw missing('percentage');
  return { fixedAmount: null, percentage: v.percentage };
}

/**
 * Billing rules, placed in the grid: a caller reaches the rules of their grid scope, and names only
 * meters within it. A meter has one role in a rule (a tenant is not also the main meter).
 */
export const billingRuleArchive = defineArchive({
  entity: billingRuleEntity,
  api: billingRuleApi,
  table: billingRule,
  shown,
  trees: { gridId: GRID_TREE },
  gridColumn: billingRule.gridId,
  toRecord: (r: Row) => ({
    ...r,
    chargeMode: r.chargeMode as BillingRuleCreate['chargeMode'],
    mainDevAddr: r.mainDevAddr ?? null,
    tenantDevAddrs: r.tenantDevAddrs ?? null,
    solarDevAddrs: r.solarDevAddrs ?? null,
    createTime: r.createTime.toISOString(),
    updateTime: r.updateTime.toISOString(),
  }),
  toValues: async (v, { tx, scope }) => {
    await assertGridInScope(tx, scope, v.gridId);
    const charge = chargeOf(v);
    const meters = metersOf(v);
    const seen = new Set<string>();
    for (const m of meters) {
      if (seen.has(m.id)) throw fieldError(RESULT.badRequest, m.field, 'ruleMeterTwice');
      seen.add(m.id);
    }
    await metersInScope(tx, scope, meters);
    const { mainMeterId: _main, tenantMeterIds: _tenants, solarMeterIds: _solar, ...stored } = v;
    return { ...stored, ...charge } satisfies EveryField<
      Omit<BillingRuleCreate, 'mainMeterId' | 'tenantMeterIds' | 'solarMeterIds'>,
      typeof billingRule.$inferInsert
    >;
  },
  afterWrite: async (v, { tx, id }) => {
    await replaceMeters(tx, id, v);
  },
});

async function replaceMeters(tx: Executor, ruleId: string, v: BillingRuleCreate) {
  await tx.delete(billingRuleMeter).where(eq(billingRuleMeter.ruleId, ruleId));
  const rows = metersOf(v).map((m, position) => ({ ruleId, role: m.role, position, meterId: m.id }));
  if (rows.length) await tx.insert(billingRuleMeter).values(rows);
}
