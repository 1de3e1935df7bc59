import { DLMS_UNITS } from '../device/catalogue';

/** DLMS unit code → its symbol; `none` (255) shows nothing. */
const UNIT_SYMBOLS: ReadonlyMap<number, string> = new Map(
  Object.entries(DLMS_UNITS).map(([name, code]) => [code, name === 'none' ? '' : name]),
);

/** The symbol of a DLMS unit code: '' for none, the bare code for one the catalogue does not name. */
export function unitSymbol(unit: number): string {
  return UNIT_SYMBOLS.get(unit) ?? String(unit);
}

/** A reading as the screens show it: the number (or the raw value when it is none), its unit, and both as text. */
export interface ScaledValue {
  value: unknown;
  unit: string;
  text: string;
}

/**
 * `raw × 10^scaler` written exactly: an integer is shifted in decimal (2305 with scaler −1 is "230.5",
 * never 230.50000000000003), so the web and the head-end print the same digits.
 */
function shifted(raw: number, scaler: number): string {
  if (!Number.isSafeInteger(raw)) return String(Number((raw * 10 ** scaler).toPrecision(15)));
  if (scaler >= 0) return (BigInt(raw) * 10n ** BigInt(scaler)).toString();
  const digits = Math.abs(raw)
    .toString()
    .padStart(-scaler + 1, '0');
  const point = digits.length + scaler;
  const fraction = digits.slice(point).replace(/0+$/, '');
  const text = fraction ? `${digits.slice(0, point)}.${fraction}` : digits.slice(0, point);
  return raw < 0 && text !== '0' ? `-${text}` : text;
}

/**
 * `scaled(item, raw).value` for a number, without building its text: an integer with a power of ten
 * up to 10^22 (exact in a double) takes one correctly rounded multiplication or division, the same
 * double the exact decimal text parses to. A load profile answer scales hundreds of values.
 */
export function scaledNumber(raw: number, scaler: number): number {
  if (!Number.isSafeInteger(raw) || scaler > 22 || scaler < -22) return Number(shifted(raw, scaler));
  return scaler >= 0 ? raw * 10 ** scaler : raw / 10 ** -scaler;
}

/**
 * A raw register value with its OBIS item's scaler and unit applied (DOMAIN.md: value × 10^scaler).
 * Only numbers scale: a clock, a relay state or a text passes through as it came.
 */
export function scaled(item: { scaler: number; unit: number }, raw: unknown): ScaledValue {
  const unit = unitSymbol(item.unit);
  const numeric = typeof raw === 'number' && Number.isFinite(raw);
  const value = numeric ? Number(shifted(raw, item.scaler)) : raw;
  const number = numeric ? shifted(raw, item.scaler) : typeof raw === 'string' ? raw : JSON.stringify(raw ?? null);
  return { value, unit, text: unit && numeric ? `${number} ${unit}` : number };
}
