import { describe, expect, it } from 'vitest';
import {
  DEMO_VENDING_KEY,
  decodeAmount,
  decodeToken,
  deriveDecoderKey,
  encodeAmount,
  encodeToken,
  issueCreditToken,
  meterKeyDataOf,
  nextTid,
  STS_MAX_TOKEN_AMOUNT,
  splitCreditAmount,
  stsCrc16,
  tidOf,
} from './sts';

const keyA = deriveDecoderKey(DEMO_VENDING_KEY, meterKeyDataOf('MTR-0001'));
const keyB = deriveDecoderKey(DEMO_VENDING_KEY, meterKeyDataOf('MTR-0002'));
const issuedAt = Date.parse('2026-11-28T03:21:00Z');

describe('STS credit tokens', () => {
  it('computes the CRC-16 the standard names (check value of CRC-16/MODBUS: "123456789" → 0x4B37)', () => {
    expect(stsCrc16(new TextEncoder().encode('123456789'))).toBe(0x4b37);
  });

  it('encodes amounts as exponent and mantissa, exactly or not at all', () => {
    expect(encodeAmount(16_383)).toBe(16_383);
    expect(encodeAmount(16_384)).toBe(1 << 14);
    expect(encodeAmount(180_214)).toBe((1 << 14) | 16_383);
    expect(encodeAmount(180_224)).toBe(2 << 14);
    expect(encodeAmount(STS_MAX_TOKEN_AMOUNT)).toBe(0xffff);
    expect(encodeAmount(STS_MAX_TOKEN_AMOUNT + 1)).toBeNull();
    expect(encodeAmount(50_000)).toBeNull();
    for (const bits of [0, 1, 16_383, 1 << 14, 0x8123, 0xffff]) expect(encodeAmount(decodeAmount(bits))).toBe(bits);
    // 500.00 takes two tokens: 499.94 and 0.06.
    expect(splitCreditAmount(50_000)).toEqual([49_994, 6]);
    expect(splitCreditAmount(12_345)).toEqual([12_345]);
  });

  it('derives a decoder key per meter (DKGA02) and round-trips a token with its amount and TID', () => {
    expect(keyA).toMatch(/^[0-9A-F]{16}$/);
    expect(keyA).not.toBe(keyB);
    expect(deriveDecoderKey(DEMO_VENDING_KEY, meterKeyDataOf('MTR-0001'))).toBe(keyA);
    const { digits, tid } = issueCreditToken({ decoderKey: keyA, amount: 12_345, issuedAt, random: 7 });
    expect(digits).toMatch(/^\d{20}$/);
    expect(tid).toBe(tidOf(issuedAt));
    const decoded = decodeToken(keyA, digits);
    expect(decoded).toMatchObject({ ok: true, tokenClass: 0, subclass: 4, random: 7, tid, amount: 12_345 });
    expect(decoded.ok && decoded.issuedAt.toISOString()).toBe('2026-11-28T03:21:00.000Z');
  });

  it("refuses a corrupt digit, a wrong length and another meter's token", () => {
    const { digits } = issueCreditToken({ decoderKey: keyA, amount: 5_000, issuedAt });
    const corrupt = digits.slice(0, 10) + ((Number(digits[10]) + 1) % 10) + digits.slice(11);
    expect(decodeToken(keyA, corrupt)).toEqual({ ok: false, reason: 'authentication' });
    expect(decodeToken(keyA, digits.slice(1))).toEqual({ ok: false, reason: 'format' });
    expect(decodeToken(keyA, '99999999999999999999')).toEqual({ ok: false, reason: 'format' });
    expect(decodeToken(keyB, digits)).toEqual({ ok: false, reason: 'authentication' });
  });

  it('gives two tokens of one minute two TIDs', () => {
    const first = nextTid(null, issuedAt);
    expect(nextTid(first, issuedAt)).toBe(first + 1);
    expect(nextTid(first - 5, issuedAt)).toBe(first);
  });
});

describe('the 66-bit token number', () => {
  it('carries the class in bits 28 and 27, under the CRC', () => {
    const digits = encodeToken(keyA, { tokenClass: 3, subclass: 0, random: 0, tid: 1000, amount: 1 });
    expect((BigInt(digits) >> 27n) & 3n).toBe(3n);
    expect(decodeToken(keyA, digits)).toMatchObject({ ok: true, tokenClass: 3, tid: 1000, amount: 1 });
    // The class travels unencrypted, but a changed class bit fails the CRC all the same.
    const changed = (BigInt(digits) ^ (1n << 27n)).toString().padStart(20, '0');
    expect(decodeToken(keyA, changed)).toEqual({ ok: false, reason: 'authentication' });
  });
});
