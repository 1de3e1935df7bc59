import { DEVICE_PUBLISHED, type DeviceKind, parseDeviceTopic, parseDeviceUsername } from '@meterdesk/contracts';
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../db/driver';
import { dcu, meter } from '../db/schema';
import type { DeviceCredentials } from './device-credentials';

/** A device logged in on the broker, its key spelled as the archive spells it. */
export interface DeviceIdentity {
  kind: DeviceKind;
  key: string;
}

/** CONNACK return codes of MQTT 3.1.1: 4 bad user name or password, 5 not authorised. */
export type DeviceAdmission = { device: DeviceIdentity } | { refused: 4 | 5 };

/** What the embedded broker asks about a TCP client (a device); `device-policy.ts` answers from the archive. */
export interface DevicePolicy {
  admit(username: string | undefined, password: Buffer | undefined): Promise<DeviceAdmission>;
  mayPublish(device: DeviceIdentity, topic: string, retain: boolean): Promise<boolean>;
  maySubscribe(device: DeviceIdentity, topic: string): Promise<boolean>;
  /**
   * Whether a message on `topic` may still be delivered to the device, from the rights last read
   * (the broker's delivery check is synchronous): a meter moved to another DCU stops reaching the
   * old one's earlier subscription once its rights are read again.
   */
  mayReceive(device: DeviceIdentity, topic: string): boolean;
}

/** Which device topics a device speaks for: its own, and for a DCU those of its meters. */
interface Rights {
  /** False when the archive no longer holds the device as one that connects (deleted; a meter now behind a DCU). */
  connects: boolean;
  meters: ReadonlySet<string>;
  readAt: number;
}

const NO_RIGHTS: Rights = { connects: false, meters: new Set(), readAt: 0 };

export interface DevicePolicyOptions {
  /**
   * How long the rights read from the archive are trusted. A meter moved between DCUs, or a device
   * deleted or re-attached, gets its new rights within this time: checks after it read the archive again.
   */
  rightsTtlMs?: number;
}

/**
 * The device ACL: a DCU publishes `ami/dcu/{its no}/{status,heartbeat,reply,data,event}` and the same
 * channels of `ami/meter/{addr}` for the meters whose `dcu_id` is that DCU, and subscribes to the
 * `cmd` topics of itself and its meters; a direct meter (no DCU) only its own topics. No wildcards.
 * Only a device that connects on its own reaches the broker: a DCU, or a meter without a DCU.
 */
export function devicePolicy(db: Db, credentials: DeviceCredentials, options: DevicePolicyOptions = {}): DevicePolicy {
  const ttl = options.rightsTtlMs ?? 30_000;
  const known = new Map<string, Rights>();
  const reading = new Map<string, Promise<Rights>>();
  const id = (device: DeviceIdentity) => `${device.kind}:${device.key}`;

  /** One query, by the key's case-insensitive unique index; the answer carries the archive's spelling. */
  const readRights = async (device: DeviceIdentity): Promise<Rights & { key: string | null }> => {
    const readAt = Date.now();
    if (device.kind === 'meter') {
      const [row] = await db
        .select({ devAddr: meter.devAddr, dcuId: meter.dcuId })
        .from(meter)
        .where(sql`lower(${meter.devAddr}) = lower(${device.key})`);
      return { key: row?.devAddr ?? null, connects: !!row && !row.dcuId, meters: new Set(), readAt };
    }
    const rows = await db
      .select({ dcuNo: dcu.dcuNo, devAddr: meter.devAddr })
      .from(dcu)
      .leftJoin(meter, eq(meter.dcuId, dcu.id))
      .where(sql`lower(${dcu.dcuNo}) = lower(${device.key})`);
    const meters = new Set(rows.flatMap((r) => (r.devAddr === null ? [] : [r.devAddr])));
    return { key: rows[0]?.dcuNo ?? null, connects: rows.length > 0, meters, readAt };
  };

  /** One archive read at a time per device; concurrent checks share it. */
  const refresh = (device: DeviceIdentity): Promise<Rights> => {
    const key = id(device);
    let pending = reading.get(key);
    if (!pending) {
      pending = readRights(device)
        .then((rights) => {
          known.set(key, rights);
          return rights;
        })
        .finally(() => reading.delete(key));
      reading.set(key, pending);
    }
    return pending;
  };

  const fresh = (rights: Rights | undefined): rights is Rights => !!rights && Date.now() - rights.readAt < ttl;
  const rightsOf = async (device: DeviceIdentity) => {
    const cached = known.get(id(device));
    return fresh(cached) ? cached : refresh(device);
  };

  /** Whether the topic is one the device speaks for, on a channel it may use that way. */
  const covers = (device: DeviceIdentity, rights: Rights, topic: string, channels: readonly string[]) => {
    const target = parseDeviceTopic(topic);
    if (!rights.connects || !target || !channels.includes(target.channel)) return false;
    if (target.kind === device.kind && target.key === device.key) return true;
    return device.kind === 'dcu' && target.kind === 'meter' && rights.meters.has(target.key);
  };

  return {
    admit: async (username, password) => {
      if (!(await credentials.verify(username, password))) return { refused: 4 };
      const named = parseDeviceUsername(username as string) as DeviceIdentity;
      // The device may send its key in another case: from here on it is the archive's spelling.
      const rights = await readRights(named);
      if (!rights.connects || rights.key === null) return { refused: 5 };
      const device = { kind: named.kind, key: rights.key };
      known.set(id(device), rights);
      return { device };
    },
    mayPublish: async (device, topic, retain) => {
      // Only the online state is kept for late subscribers; a retained reading would replay forever.
      if (retain && parseDeviceTopic(topic)?.channel !== 'status') return false;
      return covers(device, await rightsOf(device), topic, DEVICE_PUBLISHED);
    },
    maySubscribe: async (device, topic) => covers(device, await rightsOf(device), topic, ['cmd']),
    mayReceive: (device, topic) => {
      const cached = known.get(id(device));
      if (!fresh(cached)) void refresh(device).catch(() => undefined);
      return covers(device, cached ?? NO_RIGHTS, topic, ['cmd']);
    },
  };
}
