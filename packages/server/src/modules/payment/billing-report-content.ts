import type { ReportConditions, ReportKind, ReportRow } from '@meterdesk/contracts';
import { asc, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../../db/driver';
import { subtreeIds } from '../../db/list';
import { rowsOf } from '../../db/rows';
import { billingRule, billingRuleMeter, powerGrid } from '../../db/schema';
import { GRID_TREE } from '../../rbac/scope';
import { cents, energy, energyAmount, type MeterFigures, meterFigures, money, roundTo } from './billing-report-figures';
import { dailyConsumption } from './virtual-meter';

/** Meters the general and shopping-center reports read at a time (progress is told after each chunk). */
export const REPORT_CHUNK = 1000;

/** A report's input that no longer exists (its rule or grid node was deleted): it fails with this key. */
export class ReportInputGone extends Error {
  constructor(readonly key: 'reportRuleGone' | 'reportGridGone') {
    super(key);
  }
}

export type Progress = (done: number, total: number) => Promise<void>;

/**
 * What each kind of billing report computes, from the daily rollups, the tariffs and the billing rules:
 *
 * - general: per meter of the grid node's subtree, its consumption, the days it lacks, and its energy
 *   amount at its tariff's prices.
 * - shoppingCenter: the same summed per building or area, i.e. per child node of the grid node (each
 *   with its subtree; the node's own meters as a row of the node itself).
 * - shoppingMall: a bill per tenant of the rule. The common area is the main meter minus the tenants,
 *   minus what the rule's solar meters exported (solar covers the common area first), never below 0,
 *   priced at the main meter's tariff; it is shared among the tenants in proportion to their consumption
 *   (equally when none consumed). Each bill adds the rule's charge (its fixed amount, or its percentage
 *   of the tenant's energy amount) and handling fee, then the taxes on all of it, and its total is
 *   rounded to the rule's rounding base. A tenant without a tariff is priced at the main meter's.
 * - shoppingEquipment: each meter of the rule (main, tenants, solar) per day of the period.
 */
export async function buildRows(
  db: Executor,
  kind: ReportKind,
  conditions: ReportConditions,
  progress: Progress,
): Promise<ReportRow[]> {
  if (kind === 'general' || kind === 'shoppingCenter') {
    if (!conditions.gridId) throw new ReportInputGone('reportGridGone');
    const [node] = await db.select().from(powerGrid).where(eq(powerGrid.id, conditions.gridId));
    if (!node) throw new ReportInputGone('reportGridGone');
    const meters = await subtreeMeters(db, node.id, conditions, progress);
    return kind === 'general' ? generalRows(meters) : await centerRows(db, node, meters);
  }
  const rule = await ruleOf(db, conditions.ruleId);
  return kind === 'shoppingMall'
    ? mallRows(rule, await ruleFigures(db, rule, conditions, progress))
    : equipmentRows(db, rule, conditions, progress);
}

async function subtreeMeters(db: Executor, gridId: string, period: ReportConditions, progress: Progress) {
  const where = sql`m.grid_id in (${subtreeIds(GRID_TREE, gridId)})`;
  const [count] = await rowsOf<{ n: number }>(db, sql`select count(*)::int as n from meter m where ${where}`);
  const total = count?.n ?? 0;
  const meters: MeterFigures[] = [];
  for (;;) {
    const after = meters.at(-1)?.id;
    const chunk = await meterFigures(db, where, period, { ...(after ? { after } : {}), limit: REPORT_CHUNK });
    meters.push(...chunk);
    await progress(meters.length, total);
    if (chunk.length < REPORT_CHUNK) return meters;
  }
}

function generalRows(meters: MeterFigures[]): ReportRow[] {
  return meters.map((m) => ({
    devAddr: m.devAddr,
    gridName: m.gridName,
    consumption: energy(m.consumption),
    missingDays: m.missingDays,
    energyAmount: money(energyAmount(m.consumption, m.prices, m.rates)),
  }));
}

async function centerRows(
  db: Executor,
  node: { id: string; gridName: string },
  meters: MeterFigures[],
): Promise<ReportRow[]> {
  const children = await db
    .select({ id: powerGrid.id, gridName: powerGrid.gridName })
    .from(powerGrid)
    .where(eq(powerGrid.parentId, node.id))
    .orderBy(asc(powerGrid.gridName));
  const areaOf = new Map<string, string>([[node.id, node.id]]);
  for (const child of children) {
    const nodes = await rowsOf<{ id: string }>(db, subtreeIds(GRID_TREE, child.id));
    for (const { id } of nodes) areaOf.set(id, child.id);
  }
  const areas = [{ id: node.id, gridName: node.gridName }, ...children].map((area) => ({
    ...area,
    meters: 0,
    consumption: null as number | null,
    missingDays: 0,
    energyAmount: null as number | null,
  }));
  const byId = new Map(areas.map((a) => [a.id, a]));
  const add = (a: number | null, b: number | null) => (b === null ? a : (a ?? 0) + b);
  for (const m of meters) {
    const area = byId.get(areaOf.get(m.gridId) ?? node.id);
    if (!area) continue;
    area.meters += 1;
    area.consumption = add(area.consumption, m.consumption);
    area.missingDays += m.missingDays;
    area.energyAmount = add(area.energyAmount, energyAmount(m.consumption, m.prices, m.rates));
  }
  return areas
    .filter((a) => a.meters > 0 || a.id !== node.id)
    .map((a) => ({
      gridName: a.gridName,
      meters: a.meters,
      consumption: energy(a.consumption),
      missingDays: a.missingDays,
      energyAmount: money(a.energyAmount),
    }));
}

interface Rule {
  handlingFee: number;
  taxes: number;
  roundingBase: number;
  chargeMode: string;
  fixedAmount: number | null;
  percentage: number | null;
  meters: { role: string; meterId: string }[];
}

async function ruleOf(db: Executor, ruleId: string | null): Promise<Rule> {
  const [rule] = ruleId ? await db.select().from(billingRule).where(eq(billingRule.id, ruleId)) : [];
  if (!rule) throw new ReportInputGone('reportRuleGone');
  const meters = await db
    .select({ role: billingRuleMeter.role, meterId: billingRuleMeter.meterId })
    .from(billingRuleMeter)
    .where(eq(billingRuleMeter.ruleId, rule.id))
    .orderBy(asc(billingRuleMeter.role), asc(billingRuleMeter.position));
  return { ...rule, meters };
}

async function ruleFigures(db: Executor, rule: Rule, period: ReportConditions, progress: Progress) {
  const ids = rule.meters.map((m) => m.meterId);
  const figures = ids.length ? await meterFigures(db, inArray(sql`m.id`, ids), period) : [];
  await progress(ids.length, ids.length);
  const byId = new Map(figures.map((f) => [f.id, f]));
  return rule.meters.flatMap((m) => {
    const f = byId.get(m.meterId);
    return f ? [{ ...f, role: m.role }] : [];
  });
}

function mallRows(rule: Rule, meters: (MeterFigures & { role: string })[]): ReportRow[] {
  const main = meters.find((m) => m.role === 'main');
  const tenants = meters.filter((m) => m.role === 'tenant');
  const solar = meters.filter((m) => m.role === 'solar');
  const tenantSum = tenants.reduce((sum, m) => sum + (m.consumption ?? 0), 0);
  const solarSum = solar.reduce((sum, m) => sum + (m.exported ?? 0), 0);
  const common = main?.consumption != null ? Math.max(0, main.consumption - tenantSum - solarSum) : 0;
  const commonAmount = main ? (energyAmount(common, main.prices, main.rates) ?? 0) : 0;

  const bills = tenants.map((m) => {
    const prices = m.prices ?? main?.prices ?? null;
    const amount = energyAmount(m.consumption, prices, m.prices ? m.rates : (main?.rates ?? null)) ?? 0;
    const share =
      tenantSum > 0 ? (commonAmount * (m.consumption ?? 0)) / tenantSum : commonAmount / Math.max(1, tenants.length);
    const charge = rule.chargeMode === 'fixed' ? (rule.fixedAmount ?? 0) : (amount * (rule.percentage ?? 0)) / 100;
    const subtotal = cents(amount) + cents(share) + cents(charge) + rule.handlingFee;
    const taxes = (subtotal * rule.taxes) / 100;
    return {
      devAddr: m.devAddr,
      role: 'tenant',
      consumption: energy(m.consumption),
      missingDays: m.missingDays,
      energyAmount: cents(amount),
      commonShare: cents(share),
      charge: cents(charge),
      handlingFee: rule.handlingFee,
      taxes: cents(taxes),
      total: roundTo(subtotal + cents(taxes), rule.roundingBase),
    };
  });
  const sum = (key: 'energyAmount' | 'commonShare' | 'charge' | 'handlingFee' | 'taxes' | 'total') =>
    cents(bills.reduce((s, b) => s + b[key], 0));
  const context: ReportRow[] = [
    ...(main
      ? [
          {
            devAddr: main.devAddr,
            role: 'main',
            consumption: energy(main.consumption),
            missingDays: main.missingDays,
          },
        ]
      : []),
    ...solar.map((m) => ({ devAddr: m.devAddr, role: 'solar', consumption: energy(m.exported) })),
    { devAddr: '', role: 'common', consumption: energy(common), energyAmount: cents(commonAmount) },
  ];
  const total: ReportRow = {
    devAddr: '',
    role: 'total',
    consumption: energy(tenantSum),
    energyAmount: sum('energyAmount'),
    commonShare: sum('commonShare'),
    charge: sum('charge'),
    handlingFee: sum('handlingFee'),
    taxes: sum('taxes'),
    total: sum('total'),
  };
  return [...bills, ...context, total];
}

async function equipmentRows(
  db: Executor,
  rule: Rule,
  period: ReportConditions,
  progress: Progress,
): Promise<ReportRow[]> {
  const ids = rule.meters.map((m) => m.meterId);
  const serials = new Map(
    ids.length
      ? (await meterFigures(db, inArray(sql`m.id`, ids), { startDay: period.endDay, endDay: period.endDay })).map(
          (m) => [m.id, m.devAddr] as const,
        )
      : [],
  );
  const rows: ReportRow[] = [];
  for (const [i, m] of rule.meters.entries()) {
    for (const day of await dailyConsumption(db, m.meterId, period.startDay, period.endDay))
      rows.push({
        devAddr: serials.get(m.meterId) ?? '',
        role: m.role,
        day: day.day,
        consumption: energy(day.consumption === null ? null : day.consumption / 1000),
      });
    await progress(i + 1, rule.meters.length);
  }
  return rows;
}
