import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../crypto/secret-box';
import { createTestApp, type TestApp } from '../test/harness';
import { uniqueName } from '../test/unique';
import type { DeviceCredentials } from './device-credentials';

describe('device credentials', () => {
  let t: TestApp;
  let credentials: DeviceCredentials;

  beforeAll(async () => {
    t = await createTestApp();
    credentials = t.app.deviceCredentials;
  });
  afterAll(() => t.close());

  it('makes a password once and answers the same one after, whatever the case of the key', async () => {
    const key = uniqueName('DCU').toUpperCase();
    const password = await credentials.ensure('dcu', key);
    expect(password.length).toBeGreaterThanOrEqual(32);
    expect(await credentials.ensure('dcu', key)).toBe(password);
    expect(await credentials.ensure('dcu', key.toLowerCase())).toBe(password);
    // The same key of the other kind is another device.
    expect(await credentials.ensure('meter', key)).not.toBe(password);
  });

  it('makes the missing passwords of many devices at once and keeps the existing ones', async () => {
    const old = uniqueName('m');
    const before = await credentials.ensure('meter', old);
    const fresh = Array.from({ length: 5 }, (_, i) => ({ kind: 'meter' as const, key: uniqueName(`m${i}`) }));
    const all = await credentials.ensureAll([{ kind: 'meter', key: old }, ...fresh]);
    expect(all.get(`meter:${old}`)).toBe(before);
    expect(new Set(all.values()).size).toBe(6);
    for (const d of fresh) expect(await credentials.verify(`meter:${d.key}`, all.get(`meter:${d.key}`))).toBe(true);
  });

  it('stores the password sealed under the server key, never in clear', async () => {
    const key = uniqueName('sealed');
    const password = await credentials.ensure('meter', key);
    const rows = await t.db.execute<{ kind: string; device_key: string; sealed_secret: string }>(
      sql`select * from device_credential where device_key = ${key}`,
    );
    const row = (rows as unknown as { rows: { sealed_secret: string }[] }).rows[0];
    expect(row).toBeDefined();
    expect(JSON.stringify(rows)).not.toContain(password);
    expect(new SecretBox(t.secretKey).open(row?.sealed_secret ?? '')).toBe(password);
    // Under another key it does not open.
    expect(() => new SecretBox(randomBytes(32)).open(row?.sealed_secret ?? '')).toThrow();
  });

  it('verifies only the right password of a known device', async () => {
    const key = uniqueName('D');
    const password = await credentials.ensure('dcu', key);
    expect(await credentials.verify(`dcu:${key}`, password)).toBe(true);
    expect(await credentials.verify(`dcu:${key}`, Buffer.from(password))).toBe(true);
    expect(await credentials.verify(`dcu:${key.toUpperCase()}`, password)).toBe(true);
    expect(await credentials.verify(`dcu:${key}`, `${password}x`)).toBe(false);
    expect(await credentials.verify(`dcu:${key}`, '')).toBe(false);
    expect(await credentials.verify(`dcu:${key}`, undefined)).toBe(false);
    expect(await credentials.verify(`meter:${key}`, password)).toBe(false);
    expect(await credentials.verify(`dcu:${uniqueName('unknown')}`, password)).toBe(false);
    expect(await credentials.verify(key, password)).toBe(false);
    expect(await credentials.verify(undefined, password)).toBe(false);
  });

  it('rotates a password: the old one is refused, the new one verifies', async () => {
    const key = uniqueName('rot');
    const old = await credentials.ensure('dcu', key);
    const next = await credentials.rotate('dcu', key);
    expect(next).not.toBe(old);
    expect(await credentials.verify(`dcu:${key}`, old)).toBe(false);
    expect(await credentials.verify(`dcu:${key}`, next)).toBe(true);
    expect(await credentials.ensure('dcu', key)).toBe(next);
    // A device without a password gets one.
    const first = await credentials.rotate('meter', uniqueName('new'));
    expect(first.length).toBeGreaterThanOrEqual(32);
  });
});
