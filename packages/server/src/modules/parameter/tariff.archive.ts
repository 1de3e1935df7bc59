import {
  type CalendarIssue,
  calendarIssues,
  messageText,
  RESULT,
  ratesUsed,
  type Tariff,
  type TariffCreate,
  type TouCalendar,
  tariffApi,
  tariffEntity,
  type ValidationIssue,
} from '@meterdesk/contracts';
import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/driver';
import { type EveryField, iso } from '../../db/rows';
import { meter, poc, tariff } from '../../db/schema';
import { ApiError } from '../../errors/api-error';
import { defineArchive } from '../archive/archive-kit';
import { inUseBy } from '../archive/references';
import type { SettingsService } from '../system/settings.service';
import { mapTariffTexts } from './tariff-texts';

type Row = typeof tariff.$inferSelect;

const SYNCHRONIZED = 1;
const CHANGED = 2;

/**
 * A calendar's issues as one 400: each names its field under `calendar` (`calendar.days.0.switches.2.time`;
 * a count over its limit `calendar.<list>`, the distinct rates `calendar.rates`, with `params.max`).
 */
export function calendarError(issues: readonly CalendarIssue[]): ApiError {
  const list: ValidationIssue[] = issues.map((issue) => ({
    field: ['calendar', ...issue.path].join('.'),
    key: issue.key,
    message: messageText(issue.key as never),
    ...(issue.params ? { params: issue.params } : {}),
  }));
  return new ApiError(RESULT.badRequest, list[0]?.key ?? 'invalidValue', { issues: list });
}

/** The same calendar whatever order jsonb gave its keys. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

export const sameCalendar = (a: TouCalendar, b: TouCalendar) => canonical(a) === canonical(b);

function toRecord(r: Row): Tariff {
  const calendar = r.calendar;
  return {
    id: r.id,
    tariffName: r.tariffName,
    remark: r.remark,
    price1: r.price1,
    price2: r.price2,
    price3: r.price3,
    price4: r.price4,
    calendar,
    seasonCount: calendar.seasons.length,
    weekCount: calendar.weeks.length,
    dayCount: calendar.days.length,
    specialDayCount: calendar.specialDays.length,
    rates: ratesUsed(calendar),
    createTime: iso(r.createTime),
    updateTime: iso(r.updateTime),
  };
}

/** A synchronized POC of the tariff holds an older calendar than the tariff's now. */
const markChanged = (tx: Executor, tariffId: string) =>
  tx
    .update(poc)
    .set({ syncStatus: CHANGED })
    .where(and(eq(poc.tariffId, tariffId), eq(poc.syncStatus, SYNCHRONIZED)));

/**
 * TOU tariffs: parameters every user shares (no grid scope). A calendar is refused with every issue
 * `calendarIssues` finds under the TOU limitation settings (none while no setting is saved); a changed
 * calendar is a new revision, and the POCs synchronized with the old one become changed. A saved name
 * maps the meters' and POCs' old tariff texts that name it. A tariff a meter or POC uses stays.
 */
export function tariffArchive(settings: Pick<SettingsService, 'touLimits'>) {
  return defineArchive({
    entity: tariffEntity,
    api: tariffApi,
    table: tariff,
    toRecord,
    toValues: async (v, { before }) => {
      const issues = calendarIssues(v.calendar, await settings.touLimits());
      if (issues.length) throw calendarError(issues);
      const changed = before !== undefined && !sameCalendar(before.calendar, v.calendar);
      return {
        ...v,
        revision: before ? before.revision + (changed ? 1 : 0) : 1,
      } satisfies EveryField<TariffCreate, typeof tariff.$inferInsert> & { revision: number };
    },
    afterWrite: async (v, { tx, id, before }) => {
      await mapTariffTexts(tx);
      if (before && !sameCalendar(before.calendar, v.calendar)) await markChanged(tx, id);
    },
    inUse: (tx, ids) =>
      inUseBy(tx, ids, [
        { column: meter.tariffId, key: 'tariffInUse' },
        { column: poc.tariffId, key: 'tariffInUse' },
      ]),
    options: {
      searched: [tariff.tariffName],
      label: sql<string>`${tariff.tariffName}`,
    },
  });
}

export type TariffArchive = ReturnType<typeof tariffArchive>;
