import { RESULT_CODES } from '@meterdesk/contracts';
import { sql } from 'drizzle-orm';
import type { Executor } from '../db/driver';
import type { StoredCommand } from '../headend/commands';
import type { CommandRow } from '../headend/head-end';
import type { ClockCheckRow } from './rows';

/**
 * Moves each meter's latest clock check (meter_clock) forward to the newest of the checks a write has
 * just stored, in the write's transaction. The deviation is read back from clock_check by key, so a
 * check stored through the merge (which answers keys only) counts like one COPY'd. Meters in key
 * order: two writers meeting on a meter lock its row alike. A meter deleted meanwhile keeps no row (its
 * rows leave with it, so clock monitoring counts a whole archive's clocks from this table alone).
 */
export async function keepLatestClock(
  tx: Executor,
  stored: readonly { meterId: string; ts: Date }[] | undefined,
): Promise<void> {
  if (!stored?.length) return;
  const latest = new Map<string, Date>();
  for (const row of stored) {
    const known = latest.get(row.meterId);
    if (!known || row.ts > known) latest.set(row.meterId, row.ts);
  }
  const keys = JSON.stringify([...latest].map(([meterId, ts]) => ({ meter_id: meterId, ts: ts.toISOString() })));
  await tx.execute(
    sql`insert into meter_clock as m (meter_id, checked_at, deviation_seconds)
      select c.meter_id, c.ts, c.deviation_seconds
      from json_to_recordset(${keys}::json) as k(meter_id varchar, ts timestamptz)
      join clock_check c on c.meter_id = k.meter_id and c.ts = k.ts
      where exists (select 1 from meter where meter.id = c.meter_id)
      order by c.meter_id
      on conflict (meter_id) do update set checked_at = excluded.checked_at, deviation_seconds = excluded.deviation_seconds
        where excluded.checked_at > m.checked_at`,
  );
}

/**
 * The clock check a confirmed clock sync amounts to: the meter's clock was just set, to the head-end's
 * time (deviation 0) or to a custom time (off by what that time was from the moment it was sent). Null
 * for any other command.
 */
export function clockSetCheck(
  row: Pick<CommandRow, 'operation' | 'resultCode' | 'meterId' | 'answerTime' | 'sentAt' | 'command'>,
): ClockCheckRow | null {
  if (row.operation !== 'clockSync' || row.resultCode !== RESULT_CODES.success) return null;
  if (!row.meterId || !row.answerTime) return null;
  const stored = row.command as StoredCommand;
  const custom = stored.systemClock ? undefined : stored.items[0]?.value;
  const deviationSeconds =
    typeof custom === 'string' && row.sentAt ? Math.round((Date.parse(custom) - row.sentAt.getTime()) / 1000) : 0;
  return { meterId: row.meterId, ts: row.answerTime, deviationSeconds };
}
