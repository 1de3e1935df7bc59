import type { Page } from '@meterdesk/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../db/ids';
import { consumer, dcu, meter, poc } from '../../db/schema';
import { gridNode } from '../../test/archive-fixtures';
import { createTestApp, type TestApp } from '../../test/harness';

/**
 * Rows as older software or a seed left them: every value breaks a rule an input follows today. A
 * record answers what is stored; only a change is held to the rules.
 */
describe('archive records answer what is stored, inputs stay strict', () => {
  let t: TestApp;
  let admin: string;
  let gridId: string;
  const ids = { consumer: newId(), meter: newId(), dcu: newId(), poc: newId() };

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
    gridId = await gridNode(t);
    await t.db.insert(consumer).values({
      id: ids.consumer,
      consumerCode: 'OLD.0001',
      consumerName: '',
      consumerType: 'farm',
      paymentMode: 'prepay',
      email: 'not an e-mail',
      latitude: 95,
      gridId,
    });
    await t.db.insert(meter).values({ id: ids.meter, devAddr: 'M1', status: 9, gridId });
    await t.db.insert(dcu).values({ id: ids.dcu, dcuNo: 'DCU-OLD', llsLevel: 20, taskStart: '24:30', gridId });
    await t.db.insert(poc).values({ id: ids.poc, pocNo: 'POC.OLD', nature: 9, ctRatio: 0, gridId });
  });
  afterAll(() => t.close());

  const stored = {
    consumer: {
      consumerCode: 'OLD.0001',
      consumerName: '',
      consumerType: 'farm',
      email: 'not an e-mail',
      latitude: 95,
    },
    meter: { devAddr: 'M1', status: 9 },
    dcu: { dcuNo: 'DCU-OLD', llsLevel: 20, taskStart: '24:30' },
    poc: { pocNo: 'POC.OLD', nature: 9, ctRatio: 0 },
  };

  it.each(Object.keys(ids) as (keyof typeof ids)[])('%s: lists and details it as stored', async (entity) => {
    const list = await t.call<Page<Record<string, unknown>>>(`/${entity}/list`, { gridId, pageSize: 10 }, admin);
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(list.body.data.list).toEqual([expect.objectContaining(stored[entity])]);
    const detail = await t.call(`/${entity}/detail`, { id: ids[entity] }, admin);
    expect(detail.status, JSON.stringify(detail.body)).toBe(200);
    expect(detail.body.data).toMatchObject(stored[entity]);
  });

  it('refuses the same values as an input, naming the fields', async () => {
    const detail = await t.call<Record<string, unknown>>('/consumer/detail', { id: ids.consumer }, admin);
    const { id, gridName: _name, pocs: _pocs, createTime: _created, updateTime: _updated, ...input } = detail.body.data;
    const res = await t.call('/consumer/update', { ...input, id }, admin);
    expect(res.status).toBe(400);
    const fields = (res.body as { data: { issues: { field: string }[] } }).data.issues.map((issue) => issue.field);
    expect(fields).toEqual(
      expect.arrayContaining(['consumerCode', 'consumerName', 'consumerType', 'email', 'latitude']),
    );
  });
});
