import { sql } from 'drizzle-orm';
import {
  boolean,
  index,
  integer,
  pgTable,
  primaryKey,
  smallint,
  timestamp,
  uniqueIndex,
  varchar,
} from 'drizzle-orm/pg-core';
import { bytea, createdAt, id, ref, updatedAt } from './columns';

const time = () => timestamp({ withTimezone: true, mode: 'date' });

/**
 * An uploaded firmware image, kept whole in the database with its SHA-256, on PostgreSQL and PGlite
 * alike: every server instance and every restart reads the same bytes, and a backup of the database
 * holds them. A campaign names the image it sends, so editing the firmware later changes no campaign.
 */
export const firmwareImage = pgTable('firmware_image', {
  id: id(),
  sha256: varchar({ length: 64 }).notNull(),
  size: integer().notNull(),
  content: bytea().notNull(),
  fileName: varchar({ length: 200 }).notNull(),
  uploadedBy: varchar({ length: 50 }).notNull(),
  createTime: createdAt(),
});

/** A firmware (spec §3): an image, the equipment it is for and the version devices report once upgraded. */
export const firmware = pgTable(
  'firmware',
  {
    id: id(),
    name: varchar({ length: 100 }).notNull(),
    description: varchar({ length: 500 }).notNull().default(''),
    equipment: varchar({ length: 24 }).notNull(),
    upgradeMethod: varchar({ length: 12 }).notNull(),
    targetVersion: varchar({ length: 32 }).notNull(),
    /** Bytes per image block (the spec's split size). */
    splitSize: integer().notNull(),
    imageId: ref()
      .notNull()
      .references(() => firmwareImage.id),
    createTime: createdAt(),
    updateTime: updatedAt(),
  },
  (t) => [uniqueIndex('firmware_name_uq').on(sql`lower(${t.name})`), index('firmware_image_idx').on(t.imageId)],
);

/**
 * A campaign: a firmware sent to devices. It copies what it sends (image, version, block size), so an
 * edit of the firmware leaves a running campaign alone.
 */
export const firmwareCampaign = pgTable(
  'firmware_campaign',
  {
    id: id(),
    firmwareId: ref()
      .notNull()
      .references(() => firmware.id, { onDelete: 'cascade' }),
    imageId: ref()
      .notNull()
      .references(() => firmwareImage.id),
    targetVersion: varchar({ length: 32 }).notNull(),
    method: varchar({ length: 12 }).notNull(),
    blockSize: integer().notNull(),
    blocks: integer().notNull(),
    imageSize: integer().notNull(),
    sha256: varchar({ length: 64 }).notNull(),
    /** running, paused, finished. */
    state: varchar({ length: 12 }).notNull(),
    /** canary or threshold while paused by itself. */
    pausedReason: varchar({ length: 12 }),
    /** The first devices (in the order chosen) go alone. */
    canaryCount: integer().notNull(),
    maxFailurePercent: smallint().notNull(),
    /** Failed devices a resume accepted: the threshold counts the failures after them. */
    failuresAccepted: integer().notNull().default(0),
    /** The job driving it now (a resume starts another): its progress topic. */
    jobId: varchar({ length: 36 }),
    createdBy: varchar({ length: 50 }).notNull(),
    createTime: createdAt(),
    updateTime: updatedAt(),
    finishTime: time(),
  },
  (t) => [index('firmware_campaign_firmware_idx').on(t.firmwareId, t.createTime)],
);

/**
 * A device of a campaign and where it is: its step, the first block it lacks, the command in flight
 * (the head-end's ledger holds it), and the versions read. A step changes in the transaction that
 * queues its command, on the condition that the command before is still the one recorded, so a
 * driver run twice (a restart, a second instance) never queues a step twice.
 */
export const firmwareCampaignDevice = pgTable(
  'firmware_campaign_device',
  {
    campaignId: ref()
      .notNull()
      .references(() => firmwareCampaign.id, { onDelete: 'cascade' }),
    deviceKind: varchar({ length: 8 }).notNull(),
    deviceKey: varchar({ length: 50 }).notNull(),
    /** Its place in the order chosen: the canary wave is the first `canary_count`. */
    position: integer().notNull(),
    canary: boolean().notNull(),
    meterId: ref(),
    dcuId: ref(),
    /** The DCU a meter speaks through (its route, and its broadcast group); null for a DCU or a direct meter. */
    viaDcu: varchar({ length: 50 }),
    gridId: ref().notNull(),
    step: varchar({ length: 12 }).notNull().default('waiting'),
    nextBlock: integer().notNull().default(0),
    /** The device_command in flight for the step; null when none. */
    commandId: ref(),
    /** Commands sent for the device: part of each command's key, so a step is queued once. */
    seq: integer().notNull().default(0),
    /** Commands in a row that ended without success. */
    errors: smallint().notNull().default(0),
    fromVersion: varchar({ length: 64 }).notNull().default(''),
    currentVersion: varchar({ length: 64 }).notNull().default(''),
    reason: varchar({ length: 40 }),
    updateTime: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.campaignId, t.deviceKind, t.deviceKey] }),
    index('firmware_campaign_device_key_idx').on(t.deviceKind, t.deviceKey),
  ],
);

/**
 * A broadcast: the image's blocks sent once to a DCU, which passes each to every meter of the wave
 * behind it that initiated the same image. Its meters then fill what they missed peer to peer.
 */
export const firmwareBroadcast = pgTable(
  'firmware_broadcast',
  {
    campaignId: ref()
      .notNull()
      .references(() => firmwareCampaign.id, { onDelete: 'cascade' }),
    dcuNo: varchar({ length: 50 }).notNull(),
    canary: boolean().notNull(),
    dcuId: ref(),
    gridId: ref().notNull(),
    /** sending until every block went (or the DCU kept failing), then done. */
    state: varchar({ length: 8 }).notNull().default('sending'),
    nextBlock: integer().notNull().default(0),
    commandId: ref(),
    seq: integer().notNull().default(0),
    errors: smallint().notNull().default(0),
    updateTime: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.campaignId, t.dcuNo, t.canary] })],
);
