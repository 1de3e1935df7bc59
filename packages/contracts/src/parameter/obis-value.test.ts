import { describe, expect, it } from 'vitest';
import { DLMS_UNITS } from '../device/catalogue';
import { ObisCreateSchema } from './obis.schema';
import { scaled, scaledNumber, unitSymbol } from './obis-value';

describe('scaled', () => {
  it('applies the scaler exactly and names the unit', () => {
    expect(scaled({ scaler: -1, unit: DLMS_UNITS.V }, 2305)).toEqual({ value: 230.5, unit: 'V', text: '230.5 V' });
    expect(scaled({ scaler: -3, unit: DLMS_UNITS.A }, 1234)).toEqual({ value: 1.234, unit: 'A', text: '1.234 A' });
    expect(scaled({ scaler: -3, unit: DLMS_UNITS.A }, 5)).toEqual({ value: 0.005, unit: 'A', text: '0.005 A' });
    expect(scaled({ scaler: -2, unit: DLMS_UNITS.V }, -1500)).toEqual({ value: -15, unit: 'V', text: '-15 V' });
    expect(scaled({ scaler: 3, unit: DLMS_UNITS.Wh }, 12)).toEqual({ value: 12000, unit: 'Wh', text: '12000 Wh' });
    expect(scaled({ scaler: 0, unit: DLMS_UNITS.Wh }, 0)).toEqual({ value: 0, unit: 'Wh', text: '0 Wh' });
    // 0.1 is not a binary fraction: 7 × 10^-1 multiplied is 0.7000000000000001.
    expect(scaled({ scaler: -1, unit: DLMS_UNITS.V }, 7)).toEqual({ value: 0.7, unit: 'V', text: '0.7 V' });
  });

  it('scales a non-integer reading too, rounded to what a double holds', () => {
    expect(scaled({ scaler: -1, unit: DLMS_UNITS.W }, 10.5)).toEqual({ value: 1.05, unit: 'W', text: '1.05 W' });
  });

  it('passes through what is not a number, with no unit for none', () => {
    expect(scaled({ scaler: 0, unit: DLMS_UNITS.none }, '2026-11-25T08:00:00Z')).toEqual({
      value: '2026-11-25T08:00:00Z',
      unit: '',
      text: '2026-11-25T08:00:00Z',
    });
    expect(scaled({ scaler: -1, unit: DLMS_UNITS.V }, 'n/a').text).toBe('n/a');
    expect(scaled({ scaler: 0, unit: DLMS_UNITS.none }, 1)).toEqual({ value: 1, unit: '', text: '1' });
    expect(scaled({ scaler: 0, unit: DLMS_UNITS.none }, { state: 1 }).text).toBe('{"state":1}');
  });

  it('gives the value as a number alone, the very double of the exact decimal, for any integer and scaler', () => {
    let seed = 7;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed;
    };
    for (let i = 0; i < 20_000; i++) {
      const raw = (next() % 2 ? -1 : 1) * (next() * 2 ** 20 + next());
      const scaler = (next() % 13) - 6;
      expect(scaledNumber(raw, scaler), `${raw} × 10^${scaler}`).toBe(scaled({ scaler, unit: 0 }, raw).value);
    }
    expect(scaledNumber(7, -1)).toBe(0.7);
    expect(scaledNumber(10.5, -1)).toBe(1.05);
  });

  it('names a unit code the catalogue lacks by its number', () => {
    expect(unitSymbol(DLMS_UNITS.varh)).toBe('varh');
    expect(unitSymbol(31)).toBe('31');
  });
});

describe('OBIS item input', () => {
  const item = { obis: '1-0:1.8.0.255', classId: 3, attribute: 2, description: 'x', cgName: 'a_1' };
  it.each(['1-0:1.8.0', '1-0:256.8.0.255', 'abc', '1.0.1.8.0.255', ''])('refuses the code %j', (obis) => {
    const result = ObisCreateSchema.safeParse({ ...item, obis });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([
      ['obis', obis === '' ? 'mandatory' : 'obisFormat'],
    ]);
  });

  it('takes a valid item with its defaults', () => {
    expect(ObisCreateSchema.parse({ ...item, obis: ' 0-0:96.3.10.255 ' })).toMatchObject({
      obis: '0-0:96.3.10.255',
      unit: DLMS_UNITS.none,
      scaler: 0,
      readInstantly: false,
      commonConfig: false,
    });
  });
});
