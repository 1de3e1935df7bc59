import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { type DeviceKind, deviceUsername, parseDeviceUsername } from '@meterdesk/contracts';
import { and, eq, sql } from 'drizzle-orm';
import type { SecretBox } from '../crypto/secret-box';
import type { Db } from '../db/driver';
import { newId } from '../db/ids';
import { deviceCredential } from '../db/schema';

export interface DeviceRef {
  kind: DeviceKind;
  key: string;
}

/** 24 random bytes: more than any brute force over MQTT CONNECT could try. */
const newSecret = () => randomBytes(24).toString('base64url');
const digest = (text: string | Buffer) => createHash('sha256').update(text).digest();
/** Compared when the device is unknown, so that an unknown username costs what a known one does. */
const NOBODY = digest(randomBytes(24));

const sameKey = (ref: DeviceRef) =>
  and(eq(deviceCredential.kind, ref.kind), sql`lower(${deviceCredential.deviceKey}) = lower(${ref.key})`);

/**
 * The broker passwords of devices. The clear secret is answered only to server code that hands it
 * to the device (the simulator's fleet file) or hashes it for another broker (`broker-acl`); it is
 * stored sealed and never reaches an API answer, an export or a log.
 */
export class DeviceCredentials {
  constructor(
    private readonly db: Db,
    private readonly box: SecretBox,
  ) {}

  /** The device's password, made now when it has none. */
  async ensure(kind: DeviceKind, key: string): Promise<string> {
    return (await this.ensureAll([{ kind, key }])).get(deviceUsername(kind, key).toLowerCase()) as string;
  }

  /**
   * Passwords of many devices at once (a fleet of thousands), keyed by lower-cased username; missing
   * ones are made. Two callers racing for the same device both answer the one stored first.
   */
  async ensureAll(devices: readonly DeviceRef[]): Promise<Map<string, string>> {
    const wanted = new Map(devices.map((d) => [deviceUsername(d.kind, d.key).toLowerCase(), d]));
    const found = await this.read([...wanted.keys()]);
    const missing = [...wanted].filter(([username]) => !found.has(username)).map(([, d]) => d);
    for (let i = 0; i < missing.length; i += 1000) {
      const rows = missing.slice(i, i + 1000).map((d) => ({
        id: newId(),
        kind: d.kind,
        deviceKey: d.key,
        sealedSecret: this.box.seal(newSecret()),
      }));
      await this.db.insert(deviceCredential).values(rows).onConflictDoNothing();
    }
    const made = missing.length ? await this.read(missing.map((d) => deviceUsername(d.kind, d.key).toLowerCase())) : [];
    const all = new Map([...found, ...made]);
    return new Map([...wanted.keys()].map((username) => [username, all.get(username) as string]));
  }

  /** Whether `password` is the device's; an unknown or malformed username is false. Timing-safe. */
  async verify(username: string | undefined, password: Buffer | string | undefined): Promise<boolean> {
    const ref = username ? parseDeviceUsername(username) : null;
    const [row] = ref
      ? await this.db.select({ sealed: deviceCredential.sealedSecret }).from(deviceCredential).where(sameKey(ref))
      : [];
    const expected = row ? digest(this.box.open(row.sealed)) : NOBODY;
    const given = digest(password ?? '');
    return timingSafeEqual(expected, given) && row !== undefined && password !== undefined;
  }

  /**
   * A new password for the device (made when it had none). A device already connected keeps its
   * connection until it reconnects, when the old password is refused.
   */
  async rotate(kind: DeviceKind, key: string): Promise<string> {
    const secret = newSecret();
    const [updated] = await this.db
      .update(deviceCredential)
      .set({ sealedSecret: this.box.seal(secret), rotateTime: new Date() })
      .where(sameKey({ kind, key }))
      .returning({ id: deviceCredential.id });
    if (updated) return secret;
    await this.db
      .insert(deviceCredential)
      .values({ id: newId(), kind, deviceKey: key, sealedSecret: this.box.seal(secret) })
      .onConflictDoNothing();
    return this.ensure(kind, key);
  }

  /** The stored passwords of these lower-cased usernames, opened. */
  private async read(usernames: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (let i = 0; i < usernames.length; i += 1000) {
      const rows = await this.db
        .select({ kind: deviceCredential.kind, key: deviceCredential.deviceKey, sealed: deviceCredential.sealedSecret })
        .from(deviceCredential)
        .where(
          sql`lower(${deviceCredential.kind} || ':' || ${deviceCredential.deviceKey}) in ${usernames.slice(i, i + 1000)}`,
        );
      for (const r of rows) {
        found.set(deviceUsername(r.kind as DeviceKind, r.key).toLowerCase(), this.box.open(r.sealed));
      }
    }
    return found;
  }
}
