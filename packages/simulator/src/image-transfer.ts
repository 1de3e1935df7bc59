import { createHash, type Hash } from 'node:crypto';
import { IMAGE_TRANSFER_STATUS as STATUS } from '@meterdesk/contracts';

/** Bytes of blocks received ahead of a gap a device holds; a block past them is dropped until the gap fills. */
export const PENDING_BYTES = 64 * 1024;
/** The largest image a simulated device takes (the back-office's own limit). */
const MAX_IMAGE_BYTES = 16 * 1024 * 1024;
const SHA256 = /^[0-9a-f]{64}$/;

interface Transfer {
  identifier: string;
  size: number;
  blockSize: number;
  blocks: number;
  sha256: string;
  /** The digest of the blocks before `contiguous`, fed in order. */
  hash: Hash;
  contiguous: number;
  /** Blocks after a gap, kept until it fills (at most PENDING_BYTES). */
  pending: Map<number, Buffer>;
  pendingBytes: number;
  /** The image's digest once every block went through `hash`. */
  digest: string | null;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const wholeNumber = (value: unknown, min: number, max: number): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;

/**
 * A device's image transfer (DLMS class 18) in bounded memory: the image's bytes are never kept,
 * only a running SHA-256 over the blocks received in order, and the few blocks that arrived after a
 * gap (a lost broadcast block) until it fills. Verification checks every block arrived and the
 * digest is the one initiated; activation is refused unless verification succeeded.
 */
export class ImageTransfer {
  status: number = STATUS.notInitiated;
  /** Activates (method 4) the device executed for the image now initiated: a campaign sends one. */
  activateCalls = 0;
  /** Images the device activated, over its life. */
  activations = 0;
  /** Activations of an image this device had activated before: must stay 0. */
  activatedTwice = 0;
  private transfer: Transfer | null = null;
  /** The image last activated (identifier and digest). */
  private active: string | null = null;

  /** Method 1. The same image initiated again keeps what was received: a transfer resumes. */
  initiate(value: unknown): boolean {
    if (!isObject(value)) return false;
    const { identifier, size, blockSize, sha256 } = value;
    if (typeof identifier !== 'string' || identifier.length === 0 || identifier.length > 64) return false;
    if (!wholeNumber(size, 1, MAX_IMAGE_BYTES) || !wholeNumber(blockSize, 1, 65_536)) return false;
    if (typeof sha256 !== 'string' || !SHA256.test(sha256)) return false;
    const same =
      this.transfer?.identifier === identifier &&
      this.transfer.sha256 === sha256 &&
      this.transfer.size === size &&
      this.transfer.blockSize === blockSize;
    if (!same) this.activateCalls = 0;
    if (!same)
      this.transfer = {
        identifier,
        size,
        blockSize,
        blocks: Math.ceil(size / blockSize),
        sha256,
        hash: createHash('sha256'),
        contiguous: 0,
        pending: new Map(),
        pendingBytes: 0,
        digest: null,
      };
    if (this.status !== STATUS.activationSuccessful || !same) this.status = STATUS.initiated;
    return true;
  }

  /** Whether a broadcast of this image is for this device: it initiated the image and awaits blocks. */
  awaits(identifier: unknown): boolean {
    return this.transfer?.identifier === identifier && this.status === STATUS.initiated;
  }

  /** Method 2: one block `{block, data}` (data base64). A block held already is accepted again. */
  receive(value: unknown): boolean {
    const t = this.transfer;
    if (!t || !isObject(value) || typeof value.data !== 'string') return false;
    if (this.status !== STATUS.initiated && this.status !== STATUS.verificationFailed) return false;
    const { block } = value;
    if (!wholeNumber(block, 0, t.blocks - 1)) return false;
    const data = Buffer.from(value.data, 'base64');
    const expected = block === t.blocks - 1 ? t.size - t.blockSize * (t.blocks - 1) : t.blockSize;
    if (data.length !== expected) return false;
    this.status = STATUS.initiated;
    if (block < t.contiguous || t.pending.has(block)) return true;
    if (block > t.contiguous) {
      if (t.pendingBytes + data.length > PENDING_BYTES) return false;
      t.pending.set(block, data);
      t.pendingBytes += data.length;
      return true;
    }
    t.hash.update(data);
    t.contiguous++;
    for (let next = t.pending.get(t.contiguous); next; next = t.pending.get(t.contiguous)) {
      t.pending.delete(t.contiguous);
      t.pendingBytes -= next.length;
      t.hash.update(next);
      t.contiguous++;
    }
    if (t.contiguous === t.blocks) t.digest = t.hash.digest('hex');
    return true;
  }

  /** Attribute 4: the first block not yet received. */
  firstMissing(): number {
    return this.transfer?.contiguous ?? 0;
  }

  /** Attribute 3: one bit per block, received or not. */
  transferredBits(): string {
    const t = this.transfer;
    if (!t) return '';
    let bits = '';
    for (let i = 0; i < t.blocks; i++) bits += i < t.contiguous || t.pending.has(i) ? '1' : '0';
    return bits;
  }

  blockSize(): number {
    return this.transfer?.blockSize ?? 0;
  }

  /** Attribute 7: the image verified and ready to activate. */
  toActivate(): { size: number; identifier: string; signature: string }[] {
    const t = this.transfer;
    return t && this.status === STATUS.verificationSuccessful
      ? [{ size: t.size, identifier: t.identifier, signature: t.sha256 }]
      : [];
  }

  /** Method 3: every block and the digest initiated, unless the device is made to fail. */
  verify(fail: boolean): boolean {
    const t = this.transfer;
    if (!t || (this.status !== STATUS.initiated && this.status !== STATUS.verificationFailed)) {
      return this.status === STATUS.verificationSuccessful;
    }
    const good = !fail && t.contiguous === t.blocks && t.digest === t.sha256;
    this.status = good ? STATUS.verificationSuccessful : STATUS.verificationFailed;
    return good;
  }

  /**
   * Method 4: the identifier of the image now running, or null when refused (not verified). Activating
   * the image just activated answers success again without activating it a second time.
   */
  activate(): { identifier: string; fresh: boolean } | null {
    this.activateCalls++;
    const t = this.transfer;
    if (!t) return null;
    const key = `${t.identifier}\u0000${t.sha256}`;
    if (this.status === STATUS.activationSuccessful && this.active === key)
      return { identifier: t.identifier, fresh: false };
    if (this.status !== STATUS.verificationSuccessful) return null;
    if (this.active === key) this.activatedTwice++;
    this.active = key;
    this.activations++;
    this.status = STATUS.activationSuccessful;
    return { identifier: t.identifier, fresh: true };
  }
}
