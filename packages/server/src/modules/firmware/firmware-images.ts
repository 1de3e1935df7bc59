import { createHash } from 'node:crypto';
import { firmwareImageIssue, RESULT, type UploadedImage } from '@meterdesk/contracts';
import type { Db } from '../../db/driver';
import { newId } from '../../db/ids';
import { firmwareImage } from '../../db/schema';
import { fieldError } from '../../errors/api-error';

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
