import { randomBytes } from 'node:crypto';
import type { FirmwareCreate, UploadedImage } from '@meterdesk/contracts';
import { expect } from 'vitest';
import type { TestApp } from '../../test/harness';

/** A firmware image as devices take it: binary bytes (a NUL first, so it never reads as text). */
export const imageBytes = (size: number) => {
  const bytes = randomBytes(size);
  bytes[0] = 0;
  return bytes;
};

export async function uploadImage(t: TestApp, cookie: string, file: Buffer, fileName = 'meter.bin') {
  const res = await t.app.http.inject({
    method: 'POST',
    url: '/apis/firmware/upload',
    payload: file,
    headers: { cookie, 'content-type': 'application/octet-stream', 'x-file-name': encodeURIComponent(fileName) },
  });
  return { status: res.statusCode, body: res.json() as { msg: string; data: UploadedImage & IssuesData } };
}

interface IssuesData {
  issues?: { field: string; key: string; message: string; params?: Record<string, unknown> }[];
}

/** A firmware saved with a freshly uploaded image; answers its id and the image. */
export async function saveFirmware(
  t: TestApp,
  cookie: string,
  over: Partial<FirmwareCreate> = {},
  image = imageBytes(4096),
): Promise<{ id: string; image: UploadedImage }> {
  const uploaded = await uploadImage(t, cookie, image);
  expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(200);
  const res = await t.call<{ id: string }>(
    '/firmware/save',
    {
      name: `FW ${Math.random().toString(36).slice(2, 10)}`,
      equipment: 'carrierChip',
      upgradeMethod: 'p2p',
      targetVersion: 'MT-9.0.0',
      splitSize: 512,
      imageId: uploaded.body.data.imageId,
      ...over,
    },
    cookie,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { id: res.body.data.id, image: uploaded.body.data };
}
