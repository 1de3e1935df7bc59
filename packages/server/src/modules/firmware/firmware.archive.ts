import { type Firmware, type FirmwareCreate, firmwareApi, firmwareEntity, RESULT } from '@meterdesk/contracts';
import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import type { Executor } from '../../db/driver';
import { anyRow, type EveryField, lookup, qualified } from '../../db/rows';
import { firmware, firmwareCampaign, firmwareCampaignDevice, firmwareImage } from '../../db/schema';
import { fieldError } from '../../errors/api-error';
import { defineArchive, type ShownRow } from '../archive/archive-kit';

/** The latest campaign of the firmware a row shows. */
const latestCampaign = sql`(select ${qualified(firmwareCampaign.id)} from ${firmwareCampaign}
  where ${qualified(firmwareCampaign.firmwareId)} = ${qualified(firmware.id)}
  order by ${qualified(firmwareCampaign.createTime)} desc limit 1)`;
const devicesDone = sql`(select count(*) filter (where ${qualified(firmwareCampaignDevice.step)} = 'done') || '/' || count(*)
  from ${firmwareCampaignDevice} where ${qualified(firmwareCampaignDevice.campaignId)} = ${latestCampaign})`;

const shown = {
  fileName: lookup<string>(firmwareImage.fileName, firmwareImage.id, firmware.imageId),
  size: lookup<string>(firmwareImage.size, firmwareImage.id, firmware.imageId).mapWith(Number),
  checksum: lookup<string>(firmwareImage.sha256, firmwareImage.id, firmware.imageId),
  progress: sql<string>`case when ${latestCampaign} is null then '' else ${devicesDone} end`,
  campaignState: sql<string>`coalesce((select ${qualified(firmwareCampaign.state)} from ${firmwareCampaign} where ${qualified(firmwareCampaign.id)} = ${latestCampaign}), '')`,
};
type Row = ShownRow<typeof firmware, typeof shown>;

/** Campaigns not finished block a delete: their devices would be left half-way. */
async function inCampaign(tx: Executor, ids: string[]) {
  if (!ids.length) return new Map();
  const rows = await tx
    .selectDistinct({ id: firmwareCampaign.firmwareId })
    .from(firmwareCampaign)
    .where(and(inArray(firmwareCampaign.firmwareId, ids), ne(firmwareCampaign.state, 'finished')));
  return new Map(rows.map((r) => [r.id, 'firmwareInCampaign' as const]));
}

/** Firmware is a shared parameter (no grid scope); its image was stored by `/firmware/upload`. */
export const firmwareArchive = defineArchive<typeof firmwareEntity, typeof firmware, Row, Firmware, FirmwareCreate>({
  entity: firmwareEntity,
  api: firmwareApi,
  table: firmware,
  shown,
  toRecord: (r) => ({
    id: r.id,
    name: r.name,
    description: r.description,
    equipment: r.equipment as Firmware['equipment'],
    upgradeMethod: r.upgradeMethod as Firmware['upgradeMethod'],
    targetVersion: r.targetVersion,
    splitSize: r.splitSize,
    imageId: r.imageId,
    fileName: r.fileName,
    size: r.size,
    checksum: r.checksum,
    progress: r.progress,
    campaignState: r.campaignState,
    createTime: r.createTime.toISOString(),
    updateTime: r.updateTime.toISOString(),
  }),
  toValues: async (v, { tx }) => {
    if (!(await anyRow(tx, firmwareImage, eq(firmwareImage.id, v.imageId))))
      throw fieldError(RESULT.badRequest, 'imageId', 'firmwareImageRequired');
    return { ...v } satisfies EveryField<FirmwareCreate, typeof firmware.$inferInsert>;
  },
  inUse: inCampaign,
});
