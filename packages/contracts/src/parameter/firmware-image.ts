import type { MessageKey } from '../common/messages';

/**
 * An uploaded firmware image weighs this much at most. Meter and concentrator images are tens to a
 * few hundred kilobytes (a Linux concentrator's a few megabytes); 16 MB leaves room and keeps one
 * image, held in memory while a campaign sends it, small.
 */
export const MAX_FIRMWARE_BYTES = 16 * 1024 * 1024;

/**
 * Formats a firmware upload is refused as, by their magic bytes: archives, compressed files,
 * documents and pictures. A `.bin` renamed from one of them is not an image a device can take.
 */
const FOREIGN_FORMATS: readonly (readonly number[])[] = [
  [0x50, 0x4b, 0x03, 0x04], // zip (and xlsx, docx, jar)
  [0x50, 0x4b, 0x05, 0x06], // empty zip
  [0x1f, 0x8b], // gzip
  [0x42, 0x5a, 0x68], // bzip2
  [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], // xz
  [0x28, 0xb5, 0x2f, 0xfd], // zstd
  [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], // 7z
  [0x52, 0x61, 0x72, 0x21, 0x1a, 0x07], // rar
  [0x25, 0x50, 0x44, 0x46], // %PDF
  [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1], // OLE (xls, doc, msi)
  [0x89, 0x50, 0x4e, 0x47], // png
  [0xff, 0xd8, 0xff], // jpeg
  [0x47, 0x49, 0x46, 0x38], // gif
];

const startsWith = (bytes: Uint8Array, magic: readonly number[]) =>
  bytes.length >= magic.length && magic.every((b, i) => bytes[i] === b);

/**
 * Text, as a firmware image never is: valid UTF-8 without NUL or any control character but tab, line
 * breaks and form feed. Intel HEX and S-records are text too: they are firmware, but not `.bin`.
 */
function isText(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i] as number;
    if (b < 0x80) {
      if ((b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c) || b === 0x7f) return false;
      i++;
      continue;
    }
    const length = b >= 0xf0 && b < 0xf5 ? 4 : b >= 0xe0 ? 3 : b >= 0xc2 && b < 0xe0 ? 2 : 0;
    if (length === 0 || i + length > bytes.length) return false;
    for (let k = 1; k < length; k++) if (((bytes[i + k] as number) & 0xc0) !== 0x80) return false;
    i += length;
  }
  return true;
}

/**
 * Why an upload is not a firmware image, or null when it is one. The spec asks for `.bin` files; the
 * name alone proves nothing, so the content is checked too: not empty, within MAX_FIRMWARE_BYTES,
 * binary (not text) and not an archive, document or picture by its magic bytes. Both the server
 * (which decides) and the form (which says so before uploading) run it.
 */
export function firmwareImageIssue(fileName: string, bytes: Uint8Array): MessageKey | null {
  if (!fileName.toLowerCase().endsWith('.bin')) return 'firmwareOnlyBin';
  if (bytes.length === 0) return 'firmwareFileEmpty';
  if (bytes.length > MAX_FIRMWARE_BYTES) return 'firmwareFileTooLarge';
  if (FOREIGN_FORMATS.some((magic) => startsWith(bytes, magic))) return 'firmwareNotImage';
  if (isText(bytes)) return 'firmwareNotImage';
  return null;
}
