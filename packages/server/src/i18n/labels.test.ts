import { taskEntity, templateEntity } from '@meterdesk/contracts';
import { describe, expect, it } from 'vitest';
import { entityColumns } from './labels';

describe('export columns', () => {
  it('name collection items as the screen does, in the caller’s language; an own item by its code', () => {
    const row = { items: ['loadProfile', 'activeImport', 'myItem'] };
    const [en] = entityColumns(templateEntity, ['items'], 1);
    expect(en?.title).toBe('Collection items');
    expect(en?.text(row)).toBe('Load profile, Active import (+A), myItem');
    const [zh] = entityColumns(taskEntity, ['items'], 2);
    expect(zh?.text(row)).toBe('负荷曲线, 正向有功 (+A), myItem');
  });
});
