import { type Operation, RESULT } from '@meterdesk/contracts';
import type { z } from 'zod';
import { ApiError, type CallOptions, readEnvelope, send, stripUndefined } from './api-client';

export interface DownloadedFile {
  blob: Blob;
  filename: string;
}

/** `attachment; filename*=UTF-8''…` (RFC 6266) wins over the plain `filename="…"`. */
export function filenameOf(disposition: string | null, fallback: string): string {
  if (!disposition) return fallback;
  const encoded = /filename\*\s*=\s*(?:UTF-8'[^']*')?([^;]+)/i.exec(disposition)?.[1];
  if (encoded) {
    try {
      return decodeURIComponent(encoded.trim().replace(/^"|"$/g, ''));
    } catch {
      // A malformed escape: fall back to the plain name.
    }
  }
  const plain = /filename\s*=\s*("([^"]*)"|[^;]+)/i.exec(disposition);
  return (plain?.[2] ?? plain?.[1])?.trim() || fallback;
}

/**
 * Calls an operation that answers a file (an export). A refusal still comes as the JSON envelope,
 * so anything JSON is read as one and never handed to the user as a file.
 */
export async function fetchFile<Req extends z.ZodType>(
  operation: Operation<Req>,
  body: z.input<Req>,
  options: CallOptions = {},
): Promise<DownloadedFile> {
  const response = await send(operation.path, stripUndefined(body as object), options, '*/*');
  const type = response.headers.get('Content-Type') ?? '';
  if (!response.ok || type.includes('json')) {
    await readEnvelope(operation.path, response);
    throw new ApiError(RESULT.serverError, 'interfaceError');
  }
  const fallback = operation.path.split('/').at(-1) ?? 'download';
  return { blob: await response.blob(), filename: filenameOf(response.headers.get('Content-Disposition'), fallback) };
}

/** Hands a blob to the browser as a download. */
export function saveFile({ blob, filename }: DownloadedFile): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  // Revoking at once can cancel the download in some browsers.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export async function downloadFile<Req extends z.ZodType>(
  operation: Operation<Req>,
  body: z.input<Req>,
  options: CallOptions = {},
): Promise<DownloadedFile> {
  const file = await fetchFile(operation, body, options);
  saveFile(file);
  return file;
}
