import { createHash } from 'node:crypto';
import { type Firmware, MAX_FIRMWARE_BYTES } from '@meterdesk/contracts';
import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firmwareImage } from '../../db/schema';
import { createTestApp, type TestApp } from '../../test/harness';
import { runJob } from '../../test/jobs';
import { imageBytes, saveFirmware, uploadImage } from './firmware-testing';

describe('firmware and its image', () => {
  let t: TestApp;
  let admin: string;

  beforeAll(async () => {
    t = await createTestApp({}, { jobs: true });
    admin = await t.loginAdmin();
  });
  afterAll(() => t.close());

  it('refuses every upload that is not a firmware image, naming the file and why', async () => {
    const zip = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), imageBytes(200)]);
    const cases: [Buffer, string, number, string][] = [
      [imageBytes(100), 'meter.hex', 400, 'firmwareOnlyBin'],
      [Buffer.alloc(0), 'meter.bin', 400, 'firmwareFileEmpty'],
      [Buffer.from('version=1.2\r\nthis is a text file renamed\n', 'utf8'), 'notes.bin', 400, 'firmwareNotImage'],
      [Buffer.from(':10010000214601360121470136007EFE09D2190140\n', 'ascii'), 'intel.bin', 400, 'firmwareNotImage'],
      [zip, 'archive.bin', 400, 'firmwareNotImage'],
      [imageBytes(MAX_FIRMWARE_BYTES + 1), 'huge.bin', 413, 'firmwareFileTooLarge'],
    ];
    for (const [file, name, status, key] of cases) {
      const res = await uploadImage(t, admin, file, name);
      expect({ name, status: res.status, issues: res.body.data?.issues }).toMatchObject({
        status,
        issues: [{ field: 'file', key }],
      });
    }
  });

  it('keeps an image whole in the database with its SHA-256, and the firmware shows its file', async () => {
    const bytes = imageBytes(3000);
    const { id, image } = await saveFirmware(t, admin, { name: 'Carrier chip 9.0' }, bytes);
    const sha = createHash('sha256').update(bytes).digest('hex');
    expect(image).toMatchObject({ fileName: 'meter.bin', size: 3000, sha256: sha });
    const [stored] = await t.db.select().from(firmwareImage).where(eq(firmwareImage.id, image.imageId));
    expect(createHash('sha256').update(stored!.content).digest('hex')).toBe(stored!.sha256);
    expect(stored!.sha256).toBe(sha);
    const detail = await t.call<Firmware>('/firmware/detail', { id }, admin);
    expect(detail.body.data).toMatchObject({
      name: 'Carrier chip 9.0',
      fileName: 'meter.bin',
      size: 3000,
      checksum: sha,
      splitSize: 512,
      progress: '',
      campaignState: '',
    });
  });

  it('forgets, a day after their upload, the images no firmware and no campaign names', async () => {
    const { image: kept } = await saveFirmware(t, admin);
    const unsaved = (await uploadImage(t, admin, imageBytes(500), 'unsaved.bin')).body.data;
    const fresh = (await uploadImage(t, admin, imageBytes(500), 'fresh.bin')).body.data;
    await t.db
      .update(firmwareImage)
      .set({ createTime: sql`now() - interval '2 days'` })
      .where(inArray(firmwareImage.id, [kept.imageId, unsaved.imageId]));
    expect((await runJob(t, 'firmware-image-purge')).output).toMatchObject({ deleted: 1 });
    const left = await t.db
      .select({ id: firmwareImage.id })
      .from(firmwareImage)
      .where(inArray(firmwareImage.id, [kept.imageId, unsaved.imageId, fresh.imageId]));
    expect(left.map((r) => r.id).sort()).toEqual([kept.imageId, fresh.imageId].sort());
  });

  it("answers 'Firmware name existed' in any case, and refuses a Chinese name, no version or no image", async () => {
    await saveFirmware(t, admin, { name: 'Routing 1.0' });
    const { image } = await saveFirmware(t, admin);
    const body = {
      name: 'ROUTING 1.0',
      equipment: 'routingChip',
      upgradeMethod: 'broadcast',
      targetVersion: 'RT-1.0',
      splitSize: 256,
      imageId: image.imageId,
    };
    const taken = await t.call('/firmware/save', body, admin);
    expect(taken.status).toBe(409);
    expect(taken.body.data).toMatchObject({
      issues: [{ field: 'name', key: 'existed', message: 'Firmware name existed' }],
    });
    const refusals: [Record<string, unknown>, string, string][] = [
      [{ name: '路由固件' }, 'name', 'firmwareNameChinese'],
      [{ name: 'Router１' }, 'name', 'firmwareNameChinese'],
      [{ targetVersion: '' }, 'targetVersion', 'versionRequired'],
      [{ targetVersion: undefined }, 'targetVersion', 'versionRequired'],
      [{ imageId: 'f'.repeat(32) }, 'imageId', 'firmwareImageRequired'],
      [{ splitSize: 8 }, 'splitSize', 'outOfRange'],
    ];
    for (const [over, field, key] of refusals) {
      const res = await t.call('/firmware/save', { ...body, name: 'Routing 2.0', ...over }, admin);
      expect({ over, status: res.status, data: res.body.data }).toMatchObject({
        status: 400,
        data: { issues: [{ field, key }] },
      });
    }
  });
});
