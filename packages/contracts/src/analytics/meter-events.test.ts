import { describe, expect, it } from 'vitest';
import { STANDARD_EVENTS } from '../device/catalogue';
import { meterEvents as en } from '../locales/en/meter-events';
import { meterEvents as zh } from '../locales/zh/meter-events';

describe('meter event names', () => {
  it('names every standard event in both languages, by the name its definition is seeded with', () => {
    const names = STANDARD_EVENTS.map((e) => e.name).sort();
    expect(Object.keys(en.standardNames).sort()).toEqual(names);
    expect(Object.keys(zh.standardNames).sort()).toEqual(names);
  });
});
