import { z } from 'zod';
import { choice } from '../archive/enums';
import { defineEntity, field, storedRecord } from '../common/entity';
import { IdSchema } from '../common/ids';
import { contains, equals } from '../common/list';
import type { MessageKey } from '../common/messages';
import { optionalText } from '../common/validation';

/**
 * What an image is for (spec §3 "applicable equipment"): a meter's communication module (routing,
 * 4G or carrier chip; device types 3, 4, 5) or a concentrator and its module (device type 1). The
 * devices a campaign upgrades are meters for a chip and DCUs for a concentrator.
 */
export const FIRMWARE_EQUIPMENT = [
  'routingChip',
  'chip4g',
  'carrierChip',
  'concentrator',
  'concentratorModule',
] as const;
export type FirmwareEquipment = (typeof FIRMWARE_EQUIPMENT)[number];
export const equipmentTarget = (equipment: FirmwareEquipment): 'meter' | 'dcu' =>
  equipment === 'concentrator' || equipment === 'concentratorModule' ? 'dcu' : 'meter';

/**
 * spec §2 "broadcast or peer to peer". Peer to peer sends every device its blocks; broadcast sends the
 * blocks once per DCU, which passes each to all its meters taking the same image, then fills each
 * meter's gaps peer to peer (a DCU or a direct meter has nobody to share with: peer to peer).
 */
export const UPGRADE_METHODS = ['broadcast', 'p2p'] as const;
export type UpgradeMethod = (typeof UPGRADE_METHODS)[number];

/** Block (split) sizes a campaign may cut an image into, bytes. */
export const SPLIT_SIZE_MIN = 64;
export const SPLIT_SIZE_MAX = 65_536;
export const SPLIT_SIZE_DEFAULT = 1024;

/** spec §5: a firmware name holds no Chinese characters (CJK ideographs, their punctuation, full-width forms). */
const CHINESE = /[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]/;

/** The identifier the devices report after activation (OBIS firmwareVersion): what the campaign checks. */
export const versionText = () =>
  z
    .string('versionRequired')
    .trim()
    .min(1, { error: 'versionRequired', abort: true })
    .max(32, 'tooLong')
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'versionFormat');

const fields = {
  name: field(
    z
      .string('mandatory')
      .trim()
      .min(1, { error: 'mandatory', abort: true })
      .max(100, 'tooLong')
      .refine((v) => !CHINESE.test(v), { error: 'firmwareNameChinese' }),
    { widget: 'text', unique: true },
  ),
  description: field(optionalText(500), { widget: 'textarea' }),
  equipment: choice('firmware', 'equipment', 'equipment', FIRMWARE_EQUIPMENT),
  upgradeMethod: choice('firmware', 'upgradeMethod', 'upgradeMethods', UPGRADE_METHODS).default('p2p'),
  targetVersion: field(versionText(), { widget: 'text', help: 'firmware.help.targetVersion' }),
  splitSize: field(
    z
      .number('mandatory')
      .int('wholeNumber')
      .min(SPLIT_SIZE_MIN, 'outOfRange')
      .max(SPLIT_SIZE_MAX, 'outOfRange')
      .default(SPLIT_SIZE_DEFAULT),
    { widget: 'number', help: 'firmware.help.splitSize' },
  ),
  /** The image `/firmware/upload` stored: the form's upload sets it. */
  imageId: field(z.string('firmwareImageRequired').regex(/^[0-9a-f]{32}$/, 'firmwareImageRequired'), {
    widget: 'text',
  }),
};

export const CAMPAIGN_STATES = ['running', 'paused', 'finished'] as const;
export type CampaignState = (typeof CAMPAIGN_STATES)[number];

export const FirmwareSchema = storedRecord(
  z.object({
    id: IdSchema,
    ...fields,
    fileName: field(z.string(), { widget: 'text' }),
    size: field(z.number(), { widget: 'number' }),
    checksum: field(z.string(), { widget: 'text' }),
    /** spec §3 "upgrade progress": devices done of the latest campaign, e.g. `4/5`; empty before any. */
    progress: field(z.string(), { widget: 'text' }),
    campaignState: field(z.string(), {
      widget: 'select',
      options: CAMPAIGN_STATES.map((value) => ({ value, label: `firmware.campaignStates.${value}` })),
    }),
    createTime: field(z.string(), { widget: 'datetime' }),
    updateTime: field(z.string(), { widget: 'datetime' }),
  }),
);
export type Firmware = z.infer<typeof FirmwareSchema>;

export const FirmwareCreateSchema = z.strictObject(fields);
export type FirmwareCreate = z.infer<typeof FirmwareCreateSchema>;

export const firmwareEntity = defineEntity({
  name: 'firmware',
  record: FirmwareSchema,
  create: FirmwareCreateSchema,
  pagePath: '/parameterSetting/meterUpgrade',
  columns: [
    { field: 'name', sortable: true },
    { field: 'equipment', width: 150 },
    { field: 'upgradeMethod', width: 130 },
    { field: 'targetVersion', width: 130 },
    { field: 'size', width: 110 },
    { field: 'splitSize', width: 100 },
    { field: 'progress', width: 100 },
    { field: 'campaignState', width: 110 },
    { field: 'updateTime', sortable: true, width: 180 },
  ],
  filters: [
    contains('name', 100),
    equals('equipment', z.enum(FIRMWARE_EQUIPMENT, 'invalidValue')),
    contains('targetVersion', 32),
  ],
  detail: [
    'name',
    'description',
    'equipment',
    'upgradeMethod',
    'targetVersion',
    'fileName',
    'size',
    'splitSize',
    'checksum',
    'progress',
    'campaignState',
    'createTime',
    'updateTime',
  ],
});
export type FirmwareListQuery = z.infer<typeof firmwareEntity.listQuery>;

/**
 * spec §4 upgrade progress icons: empty waiting, 00 done, 66 in progress, 88 refresh (the server is
 * reading the device's state again: after a restart, a broadcast or an activation), 99 failed.
 */
export const UPGRADE_PROGRESS = { waiting: '', done: '00', inProgress: '66', refresh: '88', failed: '99' } as const;
export type UpgradeProgress = (typeof UPGRADE_PROGRESS)[keyof typeof UPGRADE_PROGRESS];

/**
 * Where a device is in its upgrade, in order: read its version (`probe`), `initiate` the transfer,
 * wait for its DCU's `broadcast`, read the first missing block (`resync`, attribute 4), `transfer`
 * blocks, `verify`, `activate`, read the version back (`readback`), then `done` or `failed`.
 */
export const UPGRADE_STEPS = [
  'waiting',
  'probe',
  'initiate',
  'broadcast',
  'resync',
  'transfer',
  'verify',
  'activate',
  'readback',
  'done',
  'failed',
] as const;
export type UpgradeStep = (typeof UPGRADE_STEPS)[number];

export function progressOfStep(step: UpgradeStep): UpgradeProgress {
  switch (step) {
    case 'waiting':
      return UPGRADE_PROGRESS.waiting;
    case 'done':
      return UPGRADE_PROGRESS.done;
    case 'failed':
      return UPGRADE_PROGRESS.failed;
    case 'resync':
    case 'readback':
      return UPGRADE_PROGRESS.refresh;
    default:
      return UPGRADE_PROGRESS.inProgress;
  }
}

/** Why a device's upgrade failed; each a MESSAGES key. */
export const UPGRADE_FAILURES = [
  'firmwareVerifyFailed',
  'firmwareActivateFailed',
  'firmwareVersionMismatch',
  'firmwareDeviceUnreachable',
  'firmwareTransferFailed',
] as const satisfies readonly MessageKey[];

export const CampaignDeviceSchema = z.object({
  deviceKind: z.enum(['meter', 'dcu']),
  deviceKey: z.string(),
  /** The canary wave goes first; the rest only once it passed. */
  canary: z.boolean(),
  step: z.enum(UPGRADE_STEPS),
  progress: z.enum(['', '00', '66', '88', '99']),
  /** Blocks the device holds (its first missing one), of `blocks`. */
  nextBlock: z.number().int(),
  blocks: z.number().int(),
  /** The version read before the upgrade, and the one read back after activation. */
  fromVersion: z.string(),
  currentVersion: z.string(),
  reason: z.enum(UPGRADE_FAILURES).nullable(),
  updateTime: z.string(),
});
export type CampaignDevice = z.infer<typeof CampaignDeviceSchema>;

export const CampaignSummarySchema = z.object({
  campaignId: IdSchema,
  firmwareId: IdSchema,
  firmwareName: z.string(),
  targetVersion: z.string(),
  method: z.enum(UPGRADE_METHODS),
  state: z.enum(CAMPAIGN_STATES),
  /** Why it paused: its failures passed the threshold (the canary's, or the whole campaign's). */
  pausedReason: z.enum(['canary', 'threshold']).nullable(),
  canaryCount: z.number().int(),
  maxFailurePercent: z.number().int(),
  /** The job following it on `progress/{jobId}`: a resume starts another. */
  jobId: z.string().nullable(),
  createdBy: z.string(),
  createTime: z.string(),
  finishTime: z.string().nullable(),
  total: z.number().int(),
  done: z.number().int(),
  failed: z.number().int(),
});
export type CampaignSummary = z.infer<typeof CampaignSummarySchema>;

export const CampaignSchema = CampaignSummarySchema.extend({ devices: z.array(CampaignDeviceSchema) });
export type Campaign = z.infer<typeof CampaignSchema>;

/** What `progress/{jobId}` carries for a campaign: its counts and state, and the devices that changed. */
export const CampaignProgressSchema = z.object({
  done: z.number().int(),
  total: z.number().int(),
  campaignId: IdSchema,
  state: z.enum(CAMPAIGN_STATES),
  pausedReason: z.enum(['canary', 'threshold']).nullable(),
  failed: z.number().int(),
  devices: z.array(CampaignDeviceSchema),
});
export type CampaignProgress = z.infer<typeof CampaignProgressSchema>;

/** A device upgraded by a firmware's campaigns (its latest), with the version it reports and the target. */
export const AssociatedDeviceSchema = z.object({
  campaignId: IdSchema,
  deviceKind: z.enum(['meter', 'dcu']),
  deviceKey: z.string(),
  step: z.enum(UPGRADE_STEPS),
  progress: z.enum(['', '00', '66', '88', '99']),
  currentVersion: z.string(),
  targetVersion: z.string(),
  reason: z.enum(UPGRADE_FAILURES).nullable(),
  updateTime: z.string(),
});
export type AssociatedDevice = z.infer<typeof AssociatedDeviceSchema>;
