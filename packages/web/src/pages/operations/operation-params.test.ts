import { describe, expect, it } from 'vitest';
import { paramDefaults, paramFields, splitList } from './operation-params';

describe('operation parameters', () => {
  it('split a blacklist on Chinese or English commas and line breaks (spec §5)', () => {
    expect(splitList('M001，M002,M003\nM004\r\n M005 ,,')).toEqual(['M001', 'M002', 'M003', 'M004', 'M005']);
  });

  it('take their inputs from the schemas: choices as selects, OBIS lists from the catalogue, a time as a date-time', () => {
    const widgets = (operation: Parameters<typeof paramFields>[0]) =>
      Object.fromEntries(paramFields(operation).map((field) => [field.key, field.lookup ?? field.widget]));
    expect(widgets('clockSync')).toEqual({ source: 'select', time: 'datetime' });
    expect(widgets('paramSync')).toEqual({
      mode: 'select',
      freezePeriodMinutes: 'select',
      transferTime: 'text',
      channels: 'channelObis',
    });
    expect(widgets('read')).toEqual({ obis: 'readInstantlyObis' });
    expect(widgets('dcuSetBlacklist')).toEqual({ meters: 'textarea' });
    expect(widgets('relayDisconnect')).toEqual({});
    expect(paramFields('paramSync')[1]?.options?.map((option) => option.value)).toEqual([5, 15, 30, 60]);
  });

  it('start from the defaults the schemas declare', () => {
    expect(paramDefaults('clockSync')).toEqual({ source: 'system' });
    expect(paramDefaults('paramSync')).toEqual({ freezePeriodMinutes: 15, transferTime: '00:05', channels: [] });
  });
});
