import { sql } from 'drizzle-orm';
import { check, pgTable, text, timestamp, uniqueIndex, varchar } from 'drizzle-orm/pg-core';
import { createdAt, id } from './columns';

/**
 * How each device that holds its own broker connection (a DCU, or a meter without one) logs in:
 * MQTT username `{kind}:{key}` (contracts `deviceUsername`) and a random secret sealed with the
 * SecretBox. Keyed by the archive's business key, not its id, because that is what the device sends.
 */
export const deviceCredential = pgTable(
  'device_credential',
  {
    id: id(),
    kind: varchar({ length: 8 }).notNull(),
    /** The DCU number or the meter serial, as the archive spells it when the credential was made. */
    deviceKey: varchar({ length: 50 }).notNull(),
    sealedSecret: text().notNull(),
    createTime: createdAt(),
    rotateTime: timestamp({ withTimezone: true, mode: 'date' }),
  },
  (t) => [
    uniqueIndex('device_credential_key_uq').on(t.kind, sql`lower(${t.deviceKey})`),
    check('device_credential_kind_ck', sql`${t.kind} in ('dcu', 'meter')`),
  ],
);
