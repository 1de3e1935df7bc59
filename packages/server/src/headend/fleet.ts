import { chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Fleet, type FleetMeter, FleetSchema, TOKEN_TID_MEMORY, WIRINGS } from '@meterdesk/contracts';
import { asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/driver';
import { consumer, dcu, meter, meterType, poc, prepaidMeter } from '../db/schema';
import type { DeviceCredentials, DeviceRef } from '../mqtt/device-credentials';

export const FLEET_FILE = 'fleet.json';

/**
 * The simulator's fleet as the archive holds it: every DCU with its meters, and the meters without a
 * DCU as direct ones; each device that connects on its own carries its broker credentials.
 */
export async function buildFleet(db: Db, credentials: DeviceCredentials): Promise<Fleet> {
  const dcus = await db.select({ id: dcu.id, dcuNo: dcu.dcuNo }).from(dcu).orderBy(asc(dcu.dcuNo));
  const meters = await db
    .select({
      devAddr: meter.devAddr,
      dcuId: meter.dcuId,
      wiring: meterType.wiring,
      paymentMode: consumer.paymentMode,
      credit: prepaidMeter.creditCents,
      // The TIDs its gateway took (the newest it remembers), so a restarted simulator still refuses them.
      tids: sql<number[] | null>`(select json_agg(taken.tid) from (
          select (token->>'tid')::int as tid from prepaid_recharge r, jsonb_array_elements(r.tokens) token
          where r.meter_id = ${meter.id} and r.state = 'succeeded' order by tid desc limit ${TOKEN_TID_MEMORY}) taken)`,
    })
    .from(meter)
    .leftJoin(meterType, eq(meterType.id, meter.meterTypeId))
    .leftJoin(prepaidMeter, eq(prepaidMeter.meterId, meter.id))
    // A meter measures at most one POC (poc_meter_uq), whose consumer says how they pay.
    .leftJoin(poc, eq(poc.meterId, meter.id))
    .leftJoin(consumer, eq(consumer.id, poc.consumerId))
    .orderBy(asc(meter.devAddr));

  const connecting: DeviceRef[] = [
    ...dcus.map((d) => ({ kind: 'dcu' as const, key: d.dcuNo })),
    ...meters.filter((m) => !m.dcuId).map((m) => ({ kind: 'meter' as const, key: m.devAddr })),
  ];
  const passwords = await credentials.ensureAll(connecting);
  const credentialsOf = (kind: DeviceRef['kind'], key: string) => {
    const username = `${kind}:${key}`;
    return { username, password: passwords.get(username.toLowerCase()) as string };
  };

  const behind = new Map<string, FleetMeter[]>(dcus.map((d) => [d.id, []]));
  const direct: Fleet['direct'] = [];
  for (const m of meters) {
    const wiring = (WIRINGS as readonly string[]).includes(m.wiring ?? '')
      ? (m.wiring as FleetMeter['wiring'])
      : '1P2W';
    const entry: FleetMeter = {
      devAddr: m.devAddr,
      wiring,
      prepaid: m.paymentMode === 'prepay',
      // What the server last heard of its credit: a restarted simulator goes on from there.
      ...(m.credit === null ? {} : { credit: m.credit }),
      ...(m.tids ? { tids: m.tids } : {}),
    };
    const list = m.dcuId ? behind.get(m.dcuId) : undefined;
    if (list) list.push(entry);
    else direct.push({ ...entry, credentials: credentialsOf('meter', m.devAddr) });
  }
  return FleetSchema.parse({
    version: 1,
    dcus: dcus.map((d) => ({ dcuNo: d.dcuNo, credentials: credentialsOf('dcu', d.dcuNo), meters: behind.get(d.id) })),
    direct,
  });
}

/**
 * Writes the fleet to DATA_DIR/run/fleet.json, mode 600 in a directory only the service user enters
 * (it holds device passwords), and answers its path. Written beside and renamed, so a reader never
 * sees half a file.
 */
export function writeFleetFile(dataDir: string, fleet: Fleet): string {
  const dir = path.join(dataDir, 'run');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const file = path.join(dir, FLEET_FILE);
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, `${JSON.stringify(FleetSchema.parse(fleet))}\n`, { mode: 0o600 });
  chmodSync(partial, 0o600);
  renameSync(partial, file);
  return file;
}

/** The archive's fleet, written for the simulator: its file and how many devices it holds. */
export async function writeFleet(
  db: Db,
  credentials: DeviceCredentials,
  dataDir: string,
): Promise<{ file: string; dcus: number; meters: number }> {
  const fleet = await buildFleet(db, credentials);
  const meters = fleet.dcus.reduce((n, d) => n + d.meters.length, fleet.direct.length);
  return { file: writeFleetFile(dataDir, fleet), dcus: fleet.dcus.length, meters };
}
