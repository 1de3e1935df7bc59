import des from 'des.js';

/*
 * STS-format credit tokens (IEC 62055-41), as a vending system issues them and a meter checks them.
 *
 *   token data block, 64 bits, most significant first:
 *     subclass 4 | random 4 | TID 24 | amount 16 | CRC 16
 *   TID     minutes since the base date (STS_BASE_DATE)
 *   amount  exponent 2 | mantissa 14: value = m·10^e + Σ(i=1..e) 2^14·10^(i−1), so the four ranges
 *           follow one another without overlap (0–16 383 exactly, then steps of 10, 100, 1000)
 *   CRC     CRC-16, polynomial x^16 + x^15 + x^2 + 1 taken bit-reversed (0xA001), initial 0xFFFF, over
 *           the 50 bits class | subclass | random | TID | amount written as 7 bytes (leading zeros)
 *
 * The block is encrypted with the meter's decoder key by the DES algorithm (DEA, the standard's EA09;
 * des.js, since this Node's OpenSSL 3 keeps DES in its legacy provider). The standard's older STA
 * (EA07) is a nibble substitution–permutation cipher, not DES, whose tables are published only in the
 * standard itself: we do not hand-write a cipher we cannot check. The layout, the key derivation and
 * the digits are the same for both.
 *
 * The class (2 bits) travels outside the encryption: the 66-bit token number is the class above the 64
 * encrypted bits, then bits 65 and 64 (the class) swap places with bits 28 and 27 — the standard's
 * transposition. That number, in decimal, padded to 20 digits, is the token a keypad takes.
 *
 * The decoder key comes from the vending key by DKGA02: the PAN block (IIN and decoder reference
 * number, its rightmost 16 digits, as 64 bits BCD) xor the control block (key type, supply group code,
 * tariff index, key revision number, then FFFFFF) is encrypted with the vending key; the decoder key
 * is that result xor the input xor the vending key. A token encrypted with another meter's decoder key
 * decrypts to noise whose CRC fails (1 in 65 536 passes by chance): that is how STS refuses it.
 *
 * Money: class 0 (transfer credit), subclass 4 (electricity currency); the amount counts 0.01 of the
 * currency (cents), so a token carries at most 182 016.24, exactly up to 163.83 and above that in the
 * steps the exponent allows (`splitCreditAmount` cuts any amount into tokens that carry it exactly).
 */

/**
 * TID 0. The standard's first base date (1993-01-01) ran out of 24-bit minutes on 2024-11-24; STS moved
 * to 2014-01-01, good until 2045-11-24. Times are UTC, as the meters' clocks here.
 */
export const STS_BASE_DATE = Date.UTC(2014, 0, 1);
const MINUTE_MS = 60_000;
export const STS_TID_MAX = 2 ** 24 - 1;

export const STS_TOKEN_CLASS = { transfer: 0, initiateMeterTest: 1, management: 2, reserved: 3 } as const;
/** Subclasses of class 0 (transfer credit). */
export const STS_CREDIT_SUBCLASS = {
  electricity: 0,
  water: 1,
  gas: 2,
  time: 3,
  electricityCurrency: 4,
  waterCurrency: 5,
  gasCurrency: 6,
  timeCurrency: 7,
} as const;

/** The amount of a currency token is in these units of the currency: cents. */
export const STS_AMOUNT_UNIT = 0.01;
/** The largest amount (cents) one token carries: exponent 3, mantissa 16 383. */
export const STS_MAX_TOKEN_AMOUNT = 18_201_624;
const MANTISSA_MAX = 2 ** 14 - 1;

/** The sum the exponent's range starts at: Σ(i=1..e) 2^14·10^(i−1). */
const rangeStart = (exponent: number) => {
  let sum = 0;
  for (let i = 1; i <= exponent; i++) sum += 2 ** 14 * 10 ** (i - 1);
  return sum;
};

/** The 16 amount bits of an amount (cents), or null if no exponent and mantissa carry it exactly. */
export function encodeAmount(amount: number): number | null {
  if (!Number.isInteger(amount) || amount < 0) return null;
  for (let exponent = 0; exponent <= 3; exponent++) {
    const rest = amount - rangeStart(exponent);
    const step = 10 ** exponent;
    const mantissa = rest / step;
    if (rest >= 0 && mantissa <= MANTISSA_MAX) return Number.isInteger(mantissa) ? (exponent << 14) | mantissa : null;
  }
  return null;
}

export function decodeAmount(bits: number): number {
  const exponent = (bits >> 14) & 3;
  return (bits & MANTISSA_MAX) * 10 ** exponent + rangeStart(exponent);
}

/**
 * An amount (cents) as the amounts of the tokens that carry it exactly, largest first: one token up to
 * 163.83, otherwise the largest amount one token carries below it and tokens for the rest.
 */
export function splitCreditAmount(amount: number): number[] {
  if (!Number.isInteger(amount) || amount <= 0) throw new RangeError(`not an amount of cents: ${amount}`);
  const parts: number[] = [];
  let rest = amount;
  while (rest > 0) {
    let part = Math.min(rest, STS_MAX_TOKEN_AMOUNT);
    while (encodeAmount(part) === null) part--;
    parts.push(part);
    rest -= part;
  }
  return parts;
}

/** CRC-16 as STS computes it (also known as CRC-16/MODBUS): reflected 0x8005, initial 0xFFFF. */
export function stsCrc16(bytes: Uint8Array): number {
  let crc = 0xffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let i = 0; i < 8; i++) crc = crc & 1 ? (crc >>> 1) ^ 0xa001 : crc >>> 1;
  }
  return crc;
}

const bytesOf = (value: bigint, length: number) => {
  const out = new Uint8Array(length);
  for (let i = length - 1; i >= 0; i--) {
    out[i] = Number(value & 0xffn);
    value >>= 8n;
  }
  return out;
};
const bigintOf = (bytes: Iterable<number>) => {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  return n;
};

const HEX_KEY = /^[0-9A-Fa-f]{16}$/;
const keyBytes = (hex: string, what: string) => {
  if (!HEX_KEY.test(hex)) throw new RangeError(`${what} is not 16 hexadecimal digits`);
  return bytesOf(BigInt(`0x${hex}`), 8);
};
const hexOf = (n: bigint) => n.toString(16).toUpperCase().padStart(16, '0');

function desBlock(type: 'encrypt' | 'decrypt', key: Uint8Array, block: bigint): bigint {
  const cipher = des.DES.create({ type, key, padding: false });
  return bigintOf([...cipher.update(bytesOf(block, 8)), ...cipher.final()]);
}

/** What identifies a meter's decoder key under a vending key (IEC 62055-41 DKGA02). */
export interface MeterKeyData {
  /** Supply group code: 6 digits. */
  supplyGroupCode: string;
  /** Tariff index: 2 digits. */
  tariffIndex: string;
  /** Key revision number: 1–9. */
  keyRevision: number;
  /** Key type: 0 initialisation, 1 default, 2 unique (a meter's own: the default), 3 common. */
  keyType?: number;
  /** Decoder reference number, the meter number a keypad meter shows: 11 digits (or 13). */
  drn: string;
  /** Issuer identification number: 6 digits, 600727 (the standard's) unless given. */
  iin?: string;
}

export const STS_DEFAULT_IIN = '600727';

/** The meter's decoder key (16 hexadecimal digits) under a vending key (16 hexadecimal digits), by DKGA02. */
export function deriveDecoderKey(vendingKey: string, meter: MeterKeyData): string {
  const { supplyGroupCode, tariffIndex, keyRevision, keyType = 2, drn, iin = STS_DEFAULT_IIN } = meter;
  if (!/^\d{6}$/.test(supplyGroupCode)) throw new RangeError('the supply group code is not 6 digits');
  if (!/^\d{2}$/.test(tariffIndex)) throw new RangeError('the tariff index is not 2 digits');
  if (!Number.isInteger(keyRevision) || keyRevision < 1 || keyRevision > 9)
    throw new RangeError('the key revision number is not 1–9');
  if (!Number.isInteger(keyType) || keyType < 0 || keyType > 3) throw new RangeError('the key type is not 0–3');
  if (!/^(\d{11}|\d{13})$/.test(drn)) throw new RangeError('the decoder reference number is not 11 or 13 digits');
  if (!/^\d{6}$/.test(iin)) throw new RangeError('the IIN is not 6 digits');
  const key = keyBytes(vendingKey, 'the vending key');
  // The PAN's rightmost 16 digits, BCD: an 11-digit number follows the IIN, a 13-digit one zeros.
  const pan = BigInt(`0x${((drn.length === 11 ? iin : '0000') + drn).slice(-16)}`);
  const control = BigInt(`0x${keyType}${supplyGroupCode}${tariffIndex}${keyRevision}FFFFFF`);
  const input = pan ^ control;
  return hexOf(desBlock('encrypt', key, input) ^ input ^ bigintOf(key));
}

/**
 * An 11-digit decoder reference number for a meter serial: the serial itself when it is 11 digits,
 * otherwise digits drawn from it (FNV-1a), so the simulator and the server reach the same one.
 */
export function decoderReferenceOf(serial: string): string {
  if (/^\d{11}$/.test(serial)) return serial;
  let h = 0xcbf29ce484222325n;
  for (const ch of new TextEncoder().encode(serial)) h = ((h ^ BigInt(ch)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return (h % 100_000_000_000n).toString().padStart(11, '0');
}

/**
 * The demonstration vending key and key data: the simulator's meters hold decoder keys derived from
 * them unless their fleet entry carries its own, so a server using the same key reaches the same
 * decoder keys. A real installation replaces the vending key (kept sealed, never answered).
 */
export const DEMO_VENDING_KEY = '4D455445524B4559';
export const DEMO_KEY_DATA = { supplyGroupCode: '123456', tariffIndex: '01', keyRevision: 1, keyType: 2 } as const;

/** A meter's key data under the demonstration scheme: its serial gives the decoder reference number. */
export const meterKeyDataOf = (serial: string): MeterKeyData => ({ ...DEMO_KEY_DATA, drn: decoderReferenceOf(serial) });

/** The TID of an instant (minutes since the base date); out of range before it or past 2045-11-24. */
export function tidOf(at: Date | number): number {
  const tid = Math.floor(((typeof at === 'number' ? at : at.getTime()) - STS_BASE_DATE) / MINUTE_MS);
  if (!Number.isInteger(tid) || tid < 0 || tid > STS_TID_MAX) throw new RangeError('the time is outside the TID range');
  return tid;
}
export const tidTime = (tid: number) => new Date(STS_BASE_DATE + tid * MINUTE_MS);

/**
 * The TID for a meter's next token: now's, or one past the last it was given, whichever is later — a
 * meter refuses a TID it took, so two tokens in one minute need two.
 */
export const nextTid = (lastTid: number | null, now: Date | number) =>
  Math.max(tidOf(now), lastTid === null ? 0 : lastTid + 1);

export interface TokenFields {
  tokenClass: number;
  subclass: number;
  random: number;
  tid: number;
  /** Cents for a currency token. */
  amount: number;
}

const MASK64 = (1n << 64n) - 1n;
const bit = (n: bigint, i: number) => (n >> BigInt(i)) & 1n;
const withBit = (n: bigint, i: number, value: bigint) => (n & ~(1n << BigInt(i))) | (value << BigInt(i));

function crcOf(f: TokenFields, amountBits: number): number {
  const data =
    (BigInt(f.tokenClass) << 48n) |
    (BigInt(f.subclass) << 44n) |
    (BigInt(f.random) << 40n) |
    (BigInt(f.tid) << 16n) |
    BigInt(amountBits);
  return stsCrc16(bytesOf(data, 7));
}

/** The 20 digits of a token: fields, CRC, encryption, class transposed in. */
export function encodeToken(decoderKey: string, fields: TokenFields): string {
  const { tokenClass, subclass, random, tid, amount } = fields;
  const amountBits = encodeAmount(amount);
  if (amountBits === null) throw new RangeError(`one token cannot carry ${amount} exactly: splitCreditAmount`);
  if (![tokenClass, subclass, random, tid].every(Number.isInteger)) throw new RangeError('the fields are not whole');
  if (tokenClass < 0 || tokenClass > 3 || subclass < 0 || subclass > 15 || random < 0 || random > 15)
    throw new RangeError('class, subclass or random out of range');
  if (tid < 0 || tid > STS_TID_MAX) throw new RangeError('the TID is out of range');
  const block =
    (BigInt(subclass) << 60n) |
    (BigInt(random) << 56n) |
    (BigInt(tid) << 32n) |
    (BigInt(amountBits) << 16n) |
    BigInt(crcOf(fields, amountBits));
  const encrypted = desBlock('encrypt', keyBytes(decoderKey, 'the decoder key'), block);
  const cls = BigInt(tokenClass);
  let n = (bit(encrypted, 28) << 65n) | (bit(encrypted, 27) << 64n) | encrypted;
  n = withBit(withBit(n, 28, (cls >> 1n) & 1n), 27, cls & 1n);
  return n.toString().padStart(20, '0');
}

export interface CreditTokenRequest {
  decoderKey: string;
  /** Cents, as one token carries them exactly (`splitCreditAmount`). */
  amount: number;
  issuedAt: Date | number;
  /** The TID, when the vending side keeps a meter's TIDs increasing (`nextTid`); else the issuing minute. */
  tid?: number;
  /** 0–15; drawn when not given. It only makes two otherwise equal tokens differ. */
  random?: number;
}

/** A money credit token: class 0, subclass 4 (electricity currency). */
export function issueCreditToken(request: CreditTokenRequest): { digits: string; tid: number } {
  const tid = request.tid ?? tidOf(request.issuedAt);
  const random = request.random ?? Math.floor(Math.random() * 16);
  const digits = encodeToken(request.decoderKey, {
    tokenClass: STS_TOKEN_CLASS.transfer,
    subclass: STS_CREDIT_SUBCLASS.electricityCurrency,
    random,
    tid,
    amount: request.amount,
  });
  return { digits, tid };
}

/**
 * Why a meter refuses a token before it looks at what it says: `format` (not 20 digits, or beyond the
 * 66 bits), `authentication` (the CRC fails after decryption: a wrong digit, or another meter's token).
 */
export type TokenDecodeFailure = 'format' | 'authentication';
export type TokenDecodeResult =
  | ({ ok: true } & TokenFields & { issuedAt: Date })
  | { ok: false; reason: TokenDecodeFailure };

/** Reads a token as its meter does: digits (spaces and dashes allowed), transposition, decryption, CRC. */
export function decodeToken(decoderKey: string, digits: string): TokenDecodeResult {
  const plain = digits.replace(/[\s-]/g, '');
  if (!/^\d{20}$/.test(plain)) return { ok: false, reason: 'format' };
  const n = BigInt(plain);
  if (n >> 66n !== 0n) return { ok: false, reason: 'format' };
  const tokenClass = Number((bit(n, 28) << 1n) | bit(n, 27));
  const encrypted = withBit(withBit(n & MASK64, 28, bit(n, 65)), 27, bit(n, 64));
  const block = desBlock('decrypt', keyBytes(decoderKey, 'the decoder key'), encrypted);
  const fields: TokenFields = {
    tokenClass,
    subclass: Number(block >> 60n),
    random: Number((block >> 56n) & 0xfn),
    tid: Number((block >> 32n) & 0xffffffn),
    amount: 0,
  };
  const amountBits = Number((block >> 16n) & 0xffffn);
  if (crcOf(fields, amountBits) !== Number(block & 0xffffn)) return { ok: false, reason: 'authentication' };
  return { ok: true, ...fields, amount: decodeAmount(amountBits), issuedAt: tidTime(fields.tid) };
}
