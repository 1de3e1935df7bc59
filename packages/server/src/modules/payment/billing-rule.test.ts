import { BILLING_RULE_RES, type BillingRule, type Page } from '@meterdesk/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gridNode, meterAt, userOfGrid } from '../../test/archive-fixtures';
import { createTestApp, type TestApp } from '../../test/harness';
import { fieldIssues, issuesIn } from '../../test/issues';
import { uniqueName } from '../../test/unique';

const RES = Object.values(BILLING_RULE_RES);

let t: TestApp;
let admin: string;
let scoped: string;
let gridA: string;
let gridB: string;
const meters: Record<'main' | 'tenant1' | 'tenant2' | 'solar' | 'theirs', string> = {
  main: '',
  tenant1: '',
  tenant2: '',
  solar: '',
  theirs: '',
};

const input = (over: Record<string, unknown> = {}) => ({
  ruleNo: 'R001',
  ruleName: uniqueName('Mall'),
  gridId: gridA,
  handlingFee: 2.5,
  taxes: 13,
  roundingBase: 0.01,
  chargeMode: 'fixed',
  fixedAmount: 10,
  mainMeterId: meters.main,
  tenantMeterIds: [meters.tenant1, meters.tenant2],
  solarMeterIds: [meters.solar],
  ...over,
});
const save = (over: Record<string, unknown> = {}, cookie = admin) =>
  t.call<{ id: string }>('/billingrule/save', input(over), cookie);
const list = (cookie = admin, query: Record<string, unknown> = {}) =>
  t.call<Page<BillingRule>>('/billingrule/list', { pageSize: 100, ...query }, cookie);

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.loginAdmin();
  gridA = await gridNode(t);
  gridB = await gridNode(t);
  for (const key of ['main', 'tenant1', 'tenant2', 'solar'] as const) meters[key] = (await meterAt(t, gridA)).id;
  meters.theirs = (await meterAt(t, gridB)).id;
  scoped = await userOfGrid(t, gridA, RES);
});
afterAll(() => t?.close());

describe('billing rules', () => {
  it('saves a rule with its main, tenant and solar meters, lists, edits and deletes it; a taken name is refused with the spec text', async () => {
    const name = uniqueName('Mall');
    const saved = await save({ ruleName: name });
    expect(saved.status).toBe(200);
    const id = saved.body.data.id;
    const found = await list(admin, { ruleName: name });
    expect(found.body.data.list).toEqual([
      expect.objectContaining({ id, ruleName: name, handlingFee: 2.5, taxes: 13, tenantCount: 2, solarCount: 1 }),
    ]);
    const detail = (await t.call<BillingRule>('/billingrule/detail', { id }, admin)).body.data;
    expect(detail).toMatchObject({
      mainMeterId: meters.main,
      tenantMeterIds: [meters.tenant1, meters.tenant2],
      solarMeterIds: [meters.solar],
      fixedAmount: 10,
      percentage: null,
    });

    const again = await save({ ruleName: name.toLowerCase(), ruleNo: 'R002' });
    expect(again.status).toBe(409);
    expect(issuesIn(again.body)).toEqual([
      expect.objectContaining({ field: 'ruleName', key: 'ruleNameExisted', message: 'Rule name already exists' }),
    ]);

    const updated = await t.call(
      '/billingrule/update',
      { ...input({ ruleName: name }), id, chargeMode: 'percentage', percentage: 5, tenantMeterIds: [meters.tenant2] },
      admin,
    );
    expect(updated.status).toBe(200);
    expect((await t.call<BillingRule>('/billingrule/detail', { id }, admin)).body.data).toMatchObject({
      chargeMode: 'percentage',
      percentage: 5,
      fixedAmount: null,
      tenantMeterIds: [meters.tenant2],
    });
    // A meter a rule bills stays.
    const meterDelete = await t.call<{ failures: { key: string }[] }>(
      '/meter/delete',
      { ids: [meters.tenant2] },
      admin,
    );
    expect(meterDelete.body.data.failures).toEqual([expect.objectContaining({ key: 'meterInBillingRule' })]);

    const deleted = await t.call<{ deleted: number }>('/billingrule/delete', { ids: [id] }, admin);
    expect(deleted.body.data.deleted).toBe(1);
    expect((await list(admin, { ruleName: name })).body.data.list).toEqual([]);
  });

  it('refuses a rounding base of 0, a percentage over 100, a missing amount and a meter twice, naming the field, writing nothing', async () => {
    const before = (await list()).body.data.total;
    const refused = async (over: Record<string, unknown>) => {
      const res = await save(over);
      expect(res.status).toBe(400);
      return fieldIssues(res.body);
    };
    expect(await refused({ roundingBase: 0 })).toEqual([['roundingBase', 'roundingBaseZero']]);
    expect(await refused({ chargeMode: 'percentage', percentage: 100.5 })).toEqual([['percentage', 'outOfRange']]);
    expect(await refused({ chargeMode: 'fixed', fixedAmount: null })).toEqual([['fixedAmount', 'ruleAmountMissing']]);
    expect(await refused({ tenantMeterIds: [meters.tenant1, meters.tenant1] })).toEqual([
      ['tenantMeterIds', 'ruleMeterTwice'],
    ]);
    expect(await refused({ tenantMeterIds: [meters.tenant1, meters.main] })).toEqual([
      ['tenantMeterIds.1', 'ruleMeterTwice'],
    ]);
    expect(await refused({ handlingFee: 1.234 })).toEqual([['handlingFee', 'twoDecimals']]);
    expect((await list()).body.data.total).toBe(before);
  });

  it("keeps a caller to the rules and meters of their grid scope: another grid's rule is not found", async () => {
    const theirs = (await save({ gridId: gridB, mainMeterId: meters.theirs, tenantMeterIds: [], solarMeterIds: [] }))
      .body.data.id;
    const mine = (await save({}, scoped)).body.data.id;
    const seen = (await list(scoped)).body.data.list.map((r) => r.id);
    expect(seen).toContain(mine);
    expect(seen).not.toContain(theirs);
    expect((await t.call('/billingrule/detail', { id: theirs }, scoped)).status).toBe(404);
    expect((await t.call('/billingrule/update', { ...input(), id: theirs }, scoped)).status).toBe(404);
    expect(
      (await t.call<{ failures: { key: string }[] }>('/billingrule/delete', { ids: [theirs] }, scoped)).body.data
        .failures,
    ).toEqual([expect.objectContaining({ key: 'notFound' })]);
    const outside = await save({ tenantMeterIds: [meters.tenant1, meters.theirs] }, scoped);
    expect(outside.status).toBe(400);
    expect(fieldIssues(outside.body)).toEqual([['tenantMeterIds.1', 'meterNotFound']]);
    expect(fieldIssues((await save({ gridId: gridB }, scoped)).body)).toEqual([['gridId', 'gridNotFound']]);
  });
});
