import type { DeviceCommandItem } from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import type { Db } from '../db/driver';
import { firmwareImage } from '../db/schema';

/** Images held in memory at once: a campaign sends one, a few run side by side. */
const CACHED_IMAGES = 4;

/** What a stored command names instead of carrying the bytes: the image and its block size. */
export interface ImageRef {
  imageId: string;
  blockSize: number;
}

const blockOf = (value: unknown): number | null => {
  if (typeof value !== 'object' || value === null) return null;
  const block = (value as { block?: unknown }).block;
  return typeof block === 'number' && Number.isInteger(block) && block >= 0 ? block : null;
};

/**
 * The bytes of image blocks, added to a command as it leaves. The ledger stores a block command as
 * the block numbers alone (`{block}` items and the image it names), so a campaign of a thousand
 * devices of a 256 KB image does not write a third of a gigabyte of base64 into `device_command`.
 */
export class ImageBlocks {
  private readonly images = new Map<string, Promise<Buffer>>();

  constructor(private readonly db: Db) {}

  private image(imageId: string): Promise<Buffer> {
    const held = this.images.get(imageId);
    if (held) {
      // Used again: the last to be forgotten.
      this.images.delete(imageId);
      this.images.set(imageId, held);
      return held;
    }
    const read = this.db
      .select({ content: firmwareImage.content })
      .from(firmwareImage)
      .where(eq(firmwareImage.id, imageId))
      .then(([row]) => {
        if (!row) throw new Error(`firmware image ${imageId} is not stored`);
        return row.content;
      });
    read.catch(() => this.images.delete(imageId));
    this.images.set(imageId, read);
    for (const key of this.images.keys()) {
      if (this.images.size <= CACHED_IMAGES) break;
      this.images.delete(key);
    }
    return read;
  }

  /** The items with each block's bytes (`data`, base64) added. */
  async fill(items: readonly DeviceCommandItem[], ref: ImageRef): Promise<DeviceCommandItem[]> {
    const bytes = await this.image(ref.imageId);
    return items.map((item) => {
      const block = blockOf(item.value);
      if (block === null) return item;
      const data = bytes.subarray(block * ref.blockSize, (block + 1) * ref.blockSize).toString('base64');
      return { ...item, value: { ...(item.value as object), data } };
    });
  }
}
