import { createHash, randomBytes } from 'node:crypto';

/** A new record id: 32 hexadecimal characters (spec §9). */
export function newId(): string {
  return randomBytes(16).toString('hex');
}

/** The same 32-hex id for the same key, so seeded rows keep their ids across databases. */
export function stableId(key: string): string {
  return createHash('md5').update(key).digest('hex');
}
