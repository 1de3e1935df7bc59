import { createHash } from 'node:crypto';
import { firmwareImageIssue, RESULT, type UploadedImage } from '@meterdesk/contracts';
import { and, lt, notExists, sql } from 'drizzle-orm';
import type { Db } from '../../db/driver';
import { newId } from '../../db/ids';
import { firmware, firmwareCampaign, firmwareImage } from '../../db/schema';
import { fieldError } from '../../errors/api-error';
import { defineJob } from '../../jobs/job-system';

/**
 * Stores an uploaded image once its name and content pass (`firmwareImageIssue`), refused naming
 * `file` otherwise. The SHA-256 kept beside the bytes is what devices verify the image against.
 */
export async function storeImage(db: Db, file: Buffer, fileName: string, username: string): Promise<UploadedImage> {
  const issue = firmwareImageIssue(fileName, file);
  if (issue) throw fieldError(RESULT.badRequest, 'file', issue);
  const image = {
    id: newId(),
    sha256: createHash('sha256').update(file).digest('hex'),
    size: file.length,
    content: file,
    fileName: fileName.slice(0, 200),
    uploadedBy: username,
  };
  await db.insert(firmwareImage).values(image);
  return { imageId: image.id, fileName: image.fileName, size: image.size, sha256: image.sha256 };
}

/**
 * Images no firmware and no campaign names (an upload never saved, an image replaced, a firmware
 * deleted) go a day after their upload: a form may still be about to save the newest.
 */
export const imagePurgeJob = (db: Db) =>
  defineJob({
    name: 'firmware-image-purge',
    schedule: '43 3 * * *',
    policy: 'stately',
    handler: async () => {
      const deleted = await db
        .delete(firmwareImage)
        .where(
          and(
            lt(firmwareImage.createTime, sql`now() - interval '1 day'`),
            notExists(db.select({ one: sql`1` }).from(firmware).where(sql`${firmware.imageId} = ${firmwareImage.id}`)),
            notExists(
              db
                .select({ one: sql`1` })
                .from(firmwareCampaign)
                .where(sql`${firmwareCampaign.imageId} = ${firmwareImage.id}`),
            ),
          ),
        )
        .returning({ id: firmwareImage.id });
      return { deleted: deleted.length };
    },
  });
