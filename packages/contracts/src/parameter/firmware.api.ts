import { z } from 'zod';
import { archiveApi, archiveResources } from '../archive/archive-api';
import { IdSchema } from '../common/ids';
import { defineOperation, needs } from '../common/operation';
import { PageQuerySchema, pageOf } from '../common/paging';
import { MAX_BATCH_DEVICES } from '../operations/operations';
import { AssociatedDeviceSchema, CampaignSchema, CampaignSummarySchema, firmwareEntity } from './firmware.schema';
import { MAX_FIRMWARE_BYTES } from './firmware-image';

const page = firmwareEntity.pagePath;

/** spec §2 meterUpgrade: add, edit, detail, associated, delete, export and the `start` button. */
export const FIRMWARE_RES = {
  ...archiveResources(page, { import: false }),
  associated: `${page}/associated`,
  start: `${page}/start`,
} as const;

/** The share of a campaign's devices that go first, and alone, unless the campaign says otherwise. */
export const DEFAULT_CANARY_PERCENT = 10;
/** Failures (of the devices, since the last resume) past which a campaign pauses, unless it says otherwise. */
export const DEFAULT_MAX_FAILURE_PERCENT = 10;

export const UploadedImageSchema = z.object({
  imageId: IdSchema,
  fileName: z.string(),
  size: z.number().int(),
  sha256: z.string(),
});
export type UploadedImage = z.infer<typeof UploadedImageSchema>;

/** Meter serials (a chip's image) or DCU numbers (a concentrator's): spec §5, at most 30 a selection. */
const SelectionSchema = z
  .array(z.string().trim().min(1, 'mandatory').max(50, 'tooLong'))
  .min(1, 'mandatory')
  .max(MAX_BATCH_DEVICES, 'batchTooLarge');

export const CampaignStartSchema = z.strictObject({
  firmwareId: IdSchema,
  devices: SelectionSchema,
  canaryPercent: z
    .number()
    .int('wholeNumber')
    .min(1, 'outOfRange')
    .max(100, 'outOfRange')
    .default(DEFAULT_CANARY_PERCENT)
    .describe('The first devices (this share, at least one) are upgraded alone; the rest start once they passed'),
  maxFailurePercent: z
    .number()
    .int('wholeNumber')
    .min(0, 'outOfRange')
    .max(100, 'outOfRange')
    .default(DEFAULT_MAX_FAILURE_PERCENT)
    .describe(
      'The campaign pauses when its failed devices since the last resume pass this share of its devices (of the canary wave while it runs)',
    ),
});
export type CampaignStart = z.input<typeof CampaignStartSchema>;

const CampaignRefSchema = z.strictObject({ campaignId: IdSchema });
export const CampaignStartedSchema = z.object({ campaignId: IdSchema, jobId: z.string().nullable() });

const archive = archiveApi({ path: 'firmware', entity: firmwareEntity, res: FIRMWARE_RES });

export const firmwareApi = {
  ...archive,
  upload: defineOperation({
    path: '/firmware/upload',
    access: needs(FIRMWARE_RES.add, FIRMWARE_RES.edit),
    tag: 'firmware',
    summary: `firmware: store a firmware image (the raw body, a .bin file of at most ${MAX_FIRMWARE_BYTES} bytes, named by the X-File-Name header) with its sha256; refused naming \`file\` when it is empty, not .bin, too large or not an image by its content (text, an archive, a document). The answer's imageId goes into save or update`,
    request: z.never(),
    response: UploadedImageSchema,
    audit: 'add',
  }),
  start: defineOperation({
    path: '/firmware/campaign/start',
    access: needs(FIRMWARE_RES.start),
    tag: 'firmware',
    summary:
      "firmware: upgrade devices (within the caller's grid scope, online, in no other running campaign) to the firmware's target version through image transfer (class 18); a canary wave first; progress on progress/{jobId}",
    request: CampaignStartSchema,
    response: CampaignStartedSchema,
    audit: 'add',
  }),
  resume: defineOperation({
    path: '/firmware/campaign/resume',
    access: needs(FIRMWARE_RES.start),
    tag: 'firmware',
    summary: 'firmware: resume a paused campaign; the failures so far are accepted, the threshold counts anew',
    request: CampaignRefSchema,
    response: CampaignStartedSchema,
    audit: 'update',
  }),
  add: defineOperation({
    path: '/firmware/campaign/add',
    access: needs(FIRMWARE_RES.start),
    tag: 'firmware',
    summary:
      'firmware: add a selection of devices (checked as for start) to a campaign that has not finished; they join after its canary wave',
    request: z.strictObject({ campaignId: IdSchema, devices: SelectionSchema }),
    response: z.object({ campaignId: IdSchema, total: z.number().int() }),
    audit: 'update',
  }),
  campaigns: defineOperation({
    path: '/firmware/campaign/list',
    access: needs(FIRMWARE_RES.detail, FIRMWARE_RES.associated, FIRMWARE_RES.start),
    tag: 'firmware',
    summary: "firmware: a firmware's campaigns the caller sees (all their devices in the caller's scope), newest first",
    request: PageQuerySchema.extend({ firmwareId: IdSchema }),
    response: pageOf(CampaignSummarySchema),
  }),
  campaign: defineOperation({
    path: '/firmware/campaign/detail',
    access: needs(FIRMWARE_RES.detail, FIRMWARE_RES.associated, FIRMWARE_RES.start),
    tag: 'firmware',
    summary: 'firmware: a campaign with each device where it is (step, progress icon, blocks, versions)',
    request: CampaignRefSchema,
    response: CampaignSchema,
  }),
  associated: defineOperation({
    path: '/firmware/associated',
    access: needs(FIRMWARE_RES.associated),
    tag: 'firmware',
    summary:
      "firmware: the devices its campaigns upgraded (each by its latest), within the caller's grid scope, with the version read back and the target",
    request: PageQuerySchema.extend({ firmwareId: IdSchema, deviceKey: z.string().trim().max(50).default('') }),
    response: pageOf(AssociatedDeviceSchema),
  }),
};
