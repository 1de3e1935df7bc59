import {
  MEMBER_CHANNELS,
  type MemberChannel,
  RESULT,
  type VirtualMembers,
  type VirtualMembersSave,
} from '@meterdesk/contracts';
import { and, asc, eq, type SQL, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/driver';
import { rowsOf } from '../../db/rows';
import { meter, tariff, virtualMeterMember } from '../../db/schema';
import { fieldError, notFound } from '../../errors/api-error';
import type { SessionContext } from '../../http/operation';
import { gridScope, resolveScope, type Scope } from '../../rbac/scope';
import { metersInScope } from './meters-in-scope';

/*
 * A virtual meter is a meter row marked `virtual` with members (virtual_meter_member): each a real
 * meter's active import or active export, added (+1) or taken away (−1). Its active import is that
 * signed sum, per interval from the members' load profiles and per day from their frozen registers,
 * computed when read: nothing is stored for it, so a member's late reading shows at once. An interval
 * or day a member lacks is a gap of the virtual meter, never a zero: a main meter minus a silent tenant
 * would otherwise bill the tenant's energy to the mall.
 */

/** A member's register, by its column in the readings tables. */
const COLUMNS: Record<MemberChannel, string> = { activeImport: 'active_import', activeExport: 'active_export' };
/** The member's channel read from a readings row aliased `alias`, for a member aliased `vm`. */
const channelValue = (alias: string) =>
  sql.raw(`case vm.channel ${MEMBER_CHANNELS.map((c) => `when '${c}' then ${alias}.${COLUMNS[c]}`).join(' ')} end`);
const memberCount = (virtualId: SQL) =>
  sql`(select count(*) from ${virtualMeterMember} c where c.virtual_id = ${virtualId})`;

/**
 * Virtual meters' intervals in (from, to], as rows shaped like `reading_profile`'s: the net active
 * import, and the active power summed the same way while every member counts its import (a member's
 * export has no power of its own); the other channels none. Only the interval ends every member has a
 * value for. `virtualIds` is a list of ids or a column of the outer statement.
 */
export const virtualProfileRelation = (virtualIds: SQL, from: Date, to: Date) =>
  sql`select vm.virtual_id as meter_id, p.ts, sum(vm.sign * ${channelValue('p')})::bigint as active_import,
      null::bigint as active_export, null::bigint as reactive_import, null::bigint as reactive_export,
      (case when bool_and(vm.channel = 'activeImport') and count(p.active_power) = count(*)
        then sum(vm.sign * p.active_power) end)::int as active_power,
      null::int as voltage_l1, null::int as current_l1
    from ${virtualMeterMember} vm join reading_profile p on p.meter_id = vm.member_id and p.ts > ${from} and p.ts <= ${to}
    where vm.virtual_id in (${virtualIds})
    group by vm.virtual_id, p.ts
    having count(${channelValue('p')}) = ${memberCount(sql.raw('vm.virtual_id'))}`;

/**
 * The intervals of `meterIds` in (from, to], real meters' as stored and virtual meters' computed, as
 * one relation aliased `p` that the load profile pages read as they read `reading_profile`.
 */
export const profileSource = (meterIds: readonly string[], from: Date, to: Date) => {
  const ids = sql.join(
    meterIds.map((id) => sql`${id}`),
    sql`, `,
  );
  return sql`(select meter_id, ts, active_import, active_export, reactive_import, reactive_export, active_power,
      voltage_l1, current_l1 from reading_profile where meter_id in (${ids}) and ts > ${from} and ts <= ${to}
    union all ${virtualProfileRelation(ids, from, to)}) p`;
};

/**
 * The virtual meter's frozen registers on days (or months) in [start, end] as [day, net active import,
 * net T1…T4], oldest first. Rates exist for import registers only: with an export member the rates are
 * null. Only the days every member has a frozen row for.
 */
export const virtualFrozenRows = (
  virtualId: string,
  table: 'reading_daily' | 'reading_monthly',
  key: 'day' | 'month',
  start: string,
  end: string,
) => {
  const rate = (n: number) =>
    sql.raw(`case when bool_and(vm.channel = 'activeImport') and count(f.active_import_t${n}) = count(*)
      then sum(vm.sign * f.active_import_t${n}) end`);
  return sql`(select coalesce(json_agg(json_build_array(v.key, v.net, v.t1, v.t2, v.t3, v.t4) order by v.key), '[]')
    from (select f.${sql.raw(key)} as key, sum(vm.sign * ${channelValue('f')}) as net,
            ${rate(1)} as t1, ${rate(2)} as t2, ${rate(3)} as t3, ${rate(4)} as t4
          from ${virtualMeterMember} vm join ${sql.raw(table)} f on f.meter_id = vm.member_id
            and f.${sql.raw(key)} between ${start} and ${end}
          where vm.virtual_id = ${virtualId}
          group by f.${sql.raw(key)}
          having count(${channelValue('f')}) = ${memberCount(sql`${virtualId}`)}) v)`;
};

/**
 * Meters' days shaped like `rollup_meter_day`'s rows (meter_id, day, consumption, demand_min, demand_avg,
 * demand_max, intervals), aliased `r`: a real meter's as the rollup holds them; a virtual meter's on
 * each day some member has one, its consumption the signed sum of its members' — an import member's from
 * its rollup, an export member's from its frozen export registers (daily(D) − daily(D−1), the rollup's
 * own rule; the rollup keeps import only) — null when a member's is missing (a gap), its demand and
 * intervals none. `meterId` is a value or a column of the outer statement; `isVirtual` the outer row's
 * flag where it has one (a real meter then costs no look-up: the virtual branch is never run).
 */
export const meterDaySource = (
  meterId: SQL,
  start: string,
  end: string,
  isVirtual: SQL = sql`(select m.virtual from ${meter} m where m.id = ${meterId})`,
) =>
  sql`(select r.meter_id, r.day, r.consumption, r.demand_min, r.demand_avg, r.demand_max, r.intervals
      from rollup_meter_day r where r.meter_id = ${meterId} and r.day between ${start} and ${end}
    union all
    select ${meterId}, v.day, case when count(v.value) = ${memberCount(meterId)} then sum(v.sign * v.value) end,
      null::int, null::int, null::int, 0
    from (select r.day, vm.sign, r.consumption as value
          from ${virtualMeterMember} vm join rollup_meter_day r on r.meter_id = vm.member_id and r.day between ${start} and ${end}
          where vm.virtual_id = ${meterId} and vm.channel = 'activeImport'
          union all
          select f.day, vm.sign, f.active_export - b.active_export
          from ${virtualMeterMember} vm join reading_daily f on f.meter_id = vm.member_id and f.day between ${start} and ${end}
            left join reading_daily b on b.meter_id = f.meter_id and b.day = f.day - 1
          where vm.virtual_id = ${meterId} and vm.channel = 'activeExport') v
    where ${isVirtual}
    group by v.day) r`;

/** A day's consumption of a meter, real or virtual, in Wh; null when unknown (a gap). */
export interface DayConsumption {
  day: string;
  consumption: number | null;
}

/** A meter's consumption on each day of [startDay, endDay] (UTC days), for the billing reports (meterDaySource). */
export async function dailyConsumption(
  db: Executor,
  meterId: string,
  startDay: string,
  endDay: string,
): Promise<DayConsumption[]> {
  const rows = await rowsOf<{ day: string; consumption: string | null }>(
    db,
    sql`select to_char(d.day, 'YYYY-MM-DD') as day, r.consumption::text as consumption
      from generate_series(${startDay}::date, ${endDay}::date, interval '1 day') d(day)
      left join ${meterDaySource(sql`${meterId}`, startDay, endDay)} on r.day = d.day::date
      order by d.day`,
  );
  return rows.map((r) => ({ day: r.day, consumption: r.consumption === null ? null : Number(r.consumption) }));
}

/** The price per kWh of each TOU rate (1–4) of a meter's tariff, for the billing reports; null without a tariff. */
export async function tariffPrices(
  db: Executor,
  meterId: string,
): Promise<{ tariffId: string; tariffName: string; prices: [number, number, number, number] } | null> {
  const [row] = await db
    .select({
      tariffId: tariff.id,
      tariffName: tariff.tariffName,
      price1: tariff.price1,
      price2: tariff.price2,
      price3: tariff.price3,
      price4: tariff.price4,
    })
    .from(meter)
    .innerJoin(tariff, eq(tariff.id, meter.tariffId))
    .where(eq(meter.id, meterId));
  if (!row) return null;
  return {
    tariffId: row.tariffId,
    tariffName: row.tariffName,
    prices: [row.price1, row.price2, row.price3, row.price4],
  };
}

/** Reading and replacing a virtual meter's members, within the caller's grid scope. */
export class VirtualMeterService {
  constructor(private readonly db: Db) {}

  private async target(tx: Executor, scope: Scope, id: string) {
    const [row] = await tx
      .select({ id: meter.id, virtual: meter.virtual })
      .from(meter)
      .where(and(eq(meter.id, id), gridScope(scope, meter.gridId)));
    if (!row) throw notFound();
    return row;
  }

  async members(id: string, session: SessionContext): Promise<VirtualMembers> {
    const scope = await resolveScope(this.db, session.userId);
    const target = await this.target(this.db, scope, id);
    const members = await this.db
      .select({
        meterId: virtualMeterMember.memberId,
        devAddr: meter.devAddr,
        channel: virtualMeterMember.channel,
        sign: virtualMeterMember.sign,
      })
      .from(virtualMeterMember)
      .innerJoin(meter, eq(meter.id, virtualMeterMember.memberId))
      .where(eq(virtualMeterMember.virtualId, id))
      .orderBy(asc(virtualMeterMember.position));
    return {
      virtual: target.virtual,
      members: members.map((m) => ({ ...m, channel: m.channel as MemberChannel, sign: m.sign === -1 ? -1 : 1 })),
    };
  }

  /**
   * Replaces the members. Members are real meters only, so a virtual meter never reaches itself
   * through another and no cycle can form; the meter's own id among them is named for what it is.
   */
  async saveMembers({ id, members }: VirtualMembersSave, session: SessionContext): Promise<void> {
    await this.db.transaction(async (tx) => {
      const scope = await resolveScope(tx, session.userId);
      const target = await this.target(tx, scope, id);
      if (!target.virtual) throw fieldError(RESULT.badRequest, 'id', 'notVirtualMeter');
      const seen = new Set<string>();
      const refs = members.map((m, i) => {
        const field = `members.${i}.meterId`;
        if (m.meterId === id) throw fieldError(RESULT.badRequest, field, 'virtualContainsItself');
        const key = `${m.meterId}/${m.channel}`;
        if (seen.has(key)) throw fieldError(RESULT.badRequest, field, 'virtualMemberTwice');
        seen.add(key);
        return { id: m.meterId, field };
      });
      const reached = await metersInScope(tx, scope, refs);
      const nested = refs.find((r) => reached.get(r.id)?.virtual);
      if (nested) throw fieldError(RESULT.badRequest, nested.field, 'virtualMemberVirtual');
      await tx.delete(virtualMeterMember).where(eq(virtualMeterMember.virtualId, id));
      if (members.length)
        await tx.insert(virtualMeterMember).values(
          members.map((m, position) => ({
            virtualId: id,
            memberId: m.meterId,
            channel: m.channel,
            sign: m.sign,
            position,
          })),
        );
    });
  }
}
