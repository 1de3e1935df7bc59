import { POWER_EVENTS } from '@meterdesk/contracts';
import { type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../db/driver';
import { rowsOf } from '../db/rows';

/** A device whose supply changed: dark (a power-down) since `at`, or back (a power-up) at `at`. */
export interface PowerChange {
  kind: 'meter' | 'dcu';
  id: string;
  dark: boolean;
  at: Date;
}

interface StoredEvent {
  ts: Date;
  code: number;
}

/** What a write stored of events: the keys are enough (device, time, code). */
export interface StoredEvents {
  meterEvents?: readonly (StoredEvent & { meterId: string })[] | undefined;
  dcuEvents?: readonly (StoredEvent & { dcuId: string })[] | undefined;
}

/** One device's power events of a write, folded: its latest down and up, and the first down after that up. */
interface Folded {
  kind: 'meter' | 'dcu';
  id: string;
  down_at: string | null;
  up_at: string | null;
  first_down: string | null;
}

function fold(stored: StoredEvents): Folded[] {
  const byDevice = new Map<string, { kind: 'meter' | 'dcu'; id: string; downs: number[]; up: number | null }>();
  const add = (kind: 'meter' | 'dcu', id: string, ts: Date, code: number) => {
    const codes = POWER_EVENTS[kind];
    if (code !== codes.down && code !== codes.up) return;
    const key = `${kind}:${id}`;
    let device = byDevice.get(key);
    if (!device) {
      device = { kind, id, downs: [], up: null };
      byDevice.set(key, device);
    }
    if (code === codes.down) device.downs.push(ts.getTime());
    else device.up = Math.max(device.up ?? Number.NEGATIVE_INFINITY, ts.getTime());
  };
  for (const e of stored.meterEvents ?? []) add('meter', e.meterId, e.ts, e.code);
  for (const e of stored.dcuEvents ?? []) add('dcu', e.dcuId, e.ts, e.code);
  const iso = (ms: number | null) => (ms === null || !Number.isFinite(ms) ? null : new Date(ms).toISOString());
  return [...byDevice.values()].map(({ kind, id, downs, up }) => {
    const after = downs.filter((t) => up === null || t > up);
    return {
      kind,
      id,
      down_at: iso(downs.length ? Math.max(...downs) : null),
      up_at: iso(up),
      first_down: iso(after.length ? Math.min(...after) : null),
    };
  });
}

/**
 * Folds the power events a write stored into `device_power`, in the write's transaction, and answers
 * the devices whose supply changed (dark ↔ not dark). A device unknown until now counts as supplied,
 * so its first power-up changes nothing. Rows are locked in key order first, so two writers folding
 * the same devices wait for each other instead of deadlocking, and each sees what the other stored.
 */
export async function recordPower(tx: Executor, stored: StoredEvents): Promise<PowerChange[]> {
  const folded = fold(stored).sort((a, b) => (a.kind + a.id < b.kind + b.id ? -1 : 1));
  if (!folded.length) return [];
  const batch = sql`json_to_recordset(${JSON.stringify(folded)}::json)
    as b(kind text, id text, down_at timestamptz, up_at timestamptz, first_down timestamptz)`;
  const before = await rowsOf<{ kind: string; id: string; dark: boolean }>(
    tx,
    sql`select p.device_kind as kind, p.device_id as id, p.dark from device_power p
      join ${batch} on p.device_kind = b.kind and p.device_id = b.id
      order by p.device_kind, p.device_id for update of p`,
  );
  const wasDark = new Set(before.filter((r) => r.dark).map((r) => `${r.kind}:${r.id}`));
  // The latest down and up over what was stored and what this write adds; dark while the down is later.
  const down = sql`greatest(p.down_at, excluded.down_at)`;
  const up = sql`greatest(p.up_at, excluded.up_at)`;
  const dark = sql`(${down} is not null and (${up} is null or ${down} > ${up}))`;
  // A first down counts only when it lies after the latest up; when neither does, the latest down.
  const firstAfterUp = (at: SQL) => sql`case when ${up} is null or ${at} > ${up} then ${at} end`;
  const after = await rowsOf<{
    kind: 'meter' | 'dcu';
    id: string;
    dark: boolean;
    dark_since: string | Date | null;
    up_at: string | Date | null;
  }>(
    tx,
    sql`insert into device_power as p (device_kind, device_id, down_at, up_at, dark, dark_since)
      select b.kind, b.id, b.down_at, b.up_at,
        b.down_at is not null and (b.up_at is null or b.down_at > b.up_at),
        case when b.down_at is not null and (b.up_at is null or b.down_at > b.up_at) then coalesce(b.first_down, b.down_at) end
      from ${batch}
      on conflict (device_kind, device_id) do update set
        down_at = ${down},
        up_at = ${up},
        dark = ${dark},
        dark_since = case when ${dark} then coalesce(least(${firstAfterUp(sql`p.dark_since`)}, ${firstAfterUp(sql`excluded.dark_since`)}), ${down}) end
      returning p.device_kind as kind, p.device_id as id, p.dark, p.dark_since, p.up_at`,
  );
  return after
    .filter((r) => r.dark !== wasDark.has(`${r.kind}:${r.id}`))
    .map((r) => ({
      kind: r.kind,
      id: r.id,
      dark: r.dark,
      at: new Date((r.dark ? r.dark_since : r.up_at) as string | Date),
    }));
}
