import { type DeviceReplyItem, OBIS, RELAY_METHODS, RELAY_STATES, RESULT_CODES } from '@meterdesk/contracts';
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db, Executor } from '../db/driver';
import type { StoredCommand } from '../headend/commands';
import type { CommandRow } from '../headend/head-end';
import type { ReadingBatch } from './rows';

const DAY_MS = 86_400_000;

/** Standard event log codes that say where the relay went (contracts' STANDARD_EVENTS 60–63). */
const RELAY_EVENTS: Readonly<Record<number, number>> = {
  60: RELAY_STATES.disconnected,
  61: RELAY_STATES.connected,
  62: RELAY_STATES.disconnected,
  63: RELAY_STATES.connected,
};

/** Result codes the head-end writes itself: the device said nothing. */
const UNANSWERED = new Set<string>([RESULT_CODES.offline, RESULT_CODES.timeout, RESULT_CODES.serverTimeout]);

interface MeterTouch {
  readAt: number | null;
  readWh: number | null;
  relay: number | null;
  relayAt: number | null;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * What a batch says of each meter's live state: it communicated (any row of it), its newest active
 * import register (a load profile interval, or the frozen value at the midnight closing a day) and
 * its newest relay event. One pass over the rows: a flush holds thousands.
 */
function touches(batch: ReadingBatch): Map<string, MeterTouch> {
  const out = new Map<string, MeterTouch>();
  const touch = (meterId: string) => {
    let entry = out.get(meterId);
    if (!entry) {
      entry = { readAt: null, readWh: null, relay: null, relayAt: null };
      out.set(meterId, entry);
    }
    return entry;
  };
  const read = (meterId: string, at: number, wh: number | null | undefined) => {
    const entry = touch(meterId);
    if (typeof wh === 'number' && (entry.readAt === null || at > entry.readAt)) {
      entry.readAt = at;
      entry.readWh = wh;
    }
  };
  for (const row of batch.profile ?? []) read(row.meterId, row.ts.getTime(), row.activeImport);
  for (const row of batch.daily ?? []) read(row.meterId, Date.parse(row.day) + DAY_MS, row.activeImport);
  for (const row of batch.monthly ?? []) touch(row.meterId);
  for (const row of batch.clockChecks ?? []) touch(row.meterId);
  for (const row of batch.meterEvents ?? []) {
    const entry = touch(row.meterId);
    const state = RELAY_EVENTS[row.code];
    const which = (row.data as { relay?: unknown } | null | undefined)?.relay;
    const at = row.ts.getTime();
    if (
      state !== undefined &&
      (which === undefined || which === 'main') &&
      (entry.relayAt === null || at >= entry.relayAt)
    ) {
      entry.relay = state;
      entry.relayAt = at;
    }
  }
  return out;
}

/**
 * Brings `meter_live` up to date with what a write holds, in the write's transaction: the meters it
 * holds rows of communicated now, with their newest register read and relay event (never moved
 * back by an older one read again); the meters and DCUs whose link changed get their reachability
 * from `device_link` as it stands, which makes a change delivered twice or late harmless. Rows go in
 * meter order, so two flushes meeting on the same meters lock them alike. Readings of a meter the
 * archive no longer holds change nothing.
 */
export async function recordLive(tx: Executor, batch: ReadingBatch): Promise<void> {
  const touched = touches(batch);
  if (touched.size) {
    const rows = [...touched].map(([meterId, t]) => ({
      meter_id: meterId,
      read_at: iso(t.readAt),
      read_wh: t.readWh,
      relay: t.relay,
      relay_at: iso(t.relayAt),
    }));
    await tx.execute(
      sql`insert into meter_live as l (meter_id, last_comm_at, last_read_at, last_read_wh, relay_state, relay_at)
        select r.meter_id, now(), r.read_at, r.read_wh, r.relay, r.relay_at
        from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
          as r(meter_id varchar, read_at timestamptz, read_wh bigint, relay smallint, relay_at timestamptz)
        join meter m on m.id = r.meter_id
        order by r.meter_id
        on conflict (meter_id) do update set
          last_comm_at = greatest(l.last_comm_at, excluded.last_comm_at),
          last_read_at = case when excluded.last_read_at > coalesce(l.last_read_at, '-infinity')
            then excluded.last_read_at else l.last_read_at end,
          last_read_wh = case when excluded.last_read_at > coalesce(l.last_read_at, '-infinity')
            then excluded.last_read_wh else l.last_read_wh end,
          relay_state = case when excluded.relay_at >= coalesce(l.relay_at, '-infinity')
            then excluded.relay_state else l.relay_state end,
          relay_at = greatest(l.relay_at, excluded.relay_at)`,
    );
  }
  const meters = new Set<string>();
  const dcus = new Set<string>();
  for (const change of batch.linkChanges ?? []) (change.deviceKind === 'dcu' ? dcus : meters).add(change.deviceId);
  if (meters.size || dcus.size) await recomputeLinks(tx, [...meters], [...dcus]);
}

/**
 * Each named meter's, and each named DCU's meters', reachability as the head-end decides it: its own
 * status online and, behind a DCU, the DCU's too. Coming online is a communication (its last status).
 */
async function recomputeLinks(tx: Executor, meterIds: readonly string[], dcuIds: readonly string[]): Promise<void> {
  await tx.execute(
    sql`insert into meter_live as l (meter_id, online, last_comm_at)
      select m.id, coalesce(own.online, false) and (m.dcu_id is null or coalesce(via.online, false)),
        case when own.online then own.last_seen end
      from meter m
      left join device_link own on own.device_kind = 'meter' and own.device_key = m.dev_addr
      left join dcu d on d.id = m.dcu_id
      left join device_link via on via.device_kind = 'dcu' and via.device_key = d.dcu_no
      where m.id in (select jsonb_array_elements_text(${JSON.stringify(meterIds)}::jsonb))
        or m.dcu_id in (select jsonb_array_elements_text(${JSON.stringify(dcuIds)}::jsonb))
      order by m.id
      on conflict (meter_id) do update set online = excluded.online,
        last_comm_at = greatest(l.last_comm_at, excluded.last_comm_at)
      where l.online is distinct from excluded.online
        or excluded.last_comm_at > coalesce(l.last_comm_at, '-infinity')`,
  );
}

/** The relay state a finished command established, if it was one that sets or reads the main relay. */
export function relayOfCommand(row: Pick<CommandRow, 'command' | 'answer' | 'resultCode'>): number | null {
  const command = row.command as StoredCommand;
  const answers = ((row.answer as { items?: DeviceReplyItem[] } | null)?.items ?? []).filter(
    (item) => item.obis === OBIS.mainRelay,
  );
  for (const item of command.items.filter((i) => i.obis === OBIS.mainRelay)) {
    if (command.op === 'action') {
      const answer = answers[0];
      const done = answer?.code === undefined ? row.resultCode === RESULT_CODES.success : answer.code === '00';
      if (!done) continue;
      if (item.attribute === RELAY_METHODS.remoteDisconnect) return RELAY_STATES.disconnected;
      if (item.attribute === RELAY_METHODS.remoteReconnect) return RELAY_STATES.connected;
    }
    if (command.op === 'get') {
      const answer = answers.find((a) => a.attribute === undefined || a.attribute === item.attribute);
      if (!answer || (answer.code !== undefined && answer.code !== '00')) continue;
      // attribute 3: control_state (0, 1, 2); attribute 2: output_state (true: connected).
      if (item.attribute === 3 && (answer.value === 0 || answer.value === 1 || answer.value === 2)) return answer.value;
      if (item.attribute === 2 && typeof answer.value === 'boolean')
        return answer.value ? RELAY_STATES.connected : RELAY_STATES.disconnected;
    }
  }
  return null;
}

/**
 * The live state a meter's finished command tells: an answer is a communication, and a relay
 * command or read that succeeded says where the main relay is. Listens to the head-end's `onDone`
 * (commands finished in this instance); a failure is logged, never thrown at the head-end.
 */
export class MeterLiveState {
  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
  ) {}

  commandDone(row: CommandRow): void {
    this.record(row).catch((err: unknown) =>
      this.log.error({ err, reqId: row.reqId }, 'live state: command not recorded'),
    );
  }

  async record(row: CommandRow): Promise<void> {
    if (row.deviceKind !== 'meter' || !row.meterId) return;
    if (row.resultCode === null || UNANSWERED.has(row.resultCode)) return;
    const relay = relayOfCommand(row);
    const at = (row.answerTime ?? new Date()).toISOString();
    const newer = sql`${relay}::smallint is not null and ${at}::timestamptz >= coalesce(relay_at, '-infinity')`;
    await this.db.execute(
      sql`update meter_live set last_comm_at = greatest(last_comm_at, ${at}::timestamptz),
          relay_state = case when ${newer} then ${relay}::smallint else relay_state end,
          relay_at = case when ${newer} then ${at}::timestamptz else relay_at end
        where meter_id = ${row.meterId}`,
    );
  }
}
