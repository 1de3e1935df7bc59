import {
  contains,
  defineEntity,
  field,
  fieldMeta,
  IdSchema,
  ROOT_PARENT_ID,
  SupplierCreateSchema,
  SupplierSchema,
  supplierApi,
  supplierEntity,
} from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Executor } from '../../db/driver';
import { newId } from '../../db/ids';
import { defineList, keyOrder } from '../../db/list';
import type { EveryField } from '../../db/rows';
import { consumer, powerGrid, supplier, sysGroup, sysUser, sysUserGroup } from '../../db/schema';
import type { SessionContext } from '../../http/operation';
import { createTestApp, type TestApp } from '../../test/harness';
import { type ArchiveDefinition, ArchiveService, defineArchive } from './archive-kit';
import { supplierArchive } from './supplier.archive';

/** A grid-scoped list over the consumer table, as small as the kit allows: only its scope is under test. */
const placedEntity = defineEntity({
  name: 'placed',
  record: z.object({ id: IdSchema, code: z.string() }),
  pagePath: '/test/placed',
  columns: [{ field: 'code', sortable: true }],
  filters: [contains('code', 50)],
  form: ['code'],
  detail: ['code'],
});
type Row = typeof consumer.$inferSelect;

const placedArchive: ArchiveDefinition<typeof placedEntity, Row, { id: string; code: string }, never, never> = {
  entity: placedEntity,
  // The service never calls its operations; only the routes do.
  api: supplierApi as never,
  table: consumer,
  idColumn: consumer.id,
  nameColumn: consumer.consumerCode,
  gridColumn: consumer.gridId,
  list: defineList({
    entity: placedEntity,
    columns: { code: consumer.consumerCode },
    defaultOrder: keyOrder({ code: consumer.consumerCode, id: consumer.id }),
    tieBreak: consumer.id,
  }),
  select: (db: Executor) => db.select().from(consumer),
  toRecord: (r) => ({ id: r.id, code: r.consumerCode }),
  unique: {},
  toValues: async () => ({}),
};

describe('archive kit: grid scope of a list', () => {
  let t: TestApp;
  let service: ArchiveService<typeof placedEntity, Row, { id: string; code: string }, never, never>;
  const session = (userId: string) => ({ userId, language: 1 }) as SessionContext;
  let adminId: string;
  let groupless: string;
  let member: string;

  beforeAll(async () => {
    t = await createTestApp();
    service = new ArchiveService(t.db, placedArchive);
    const [admin] = await t.db.select({ id: sysUser.id }).from(sysUser).where(eq(sysUser.username, 'admin'));
    adminId = admin?.id ?? '';
    const north = newId();
    const south = newId();
    await t.db.insert(powerGrid).values([
      { id: north, gridCode: 'KITN', gridName: 'Kit north', parentId: ROOT_PARENT_ID },
      { id: south, gridCode: 'KITS', gridName: 'Kit south', parentId: ROOT_PARENT_ID },
    ]);
    const consumerOf = (consumerCode: string, gridId: string) => ({
      id: newId(),
      consumerCode,
      consumerName: consumerCode,
      consumerType: 'residential',
      paymentMode: 'postpay',
      gridId,
    });
    await t.db.insert(consumer).values([consumerOf('KN001', north), consumerOf('KS001', south)]);
    groupless = await t.createUser({ username: 'kit-groupless', password: 'Secret123' });
    member = await t.createUser({ username: 'kit-member', password: 'Secret123' });
    const group = newId();
    await t.db.insert(sysGroup).values({ id: group, groupName: 'Kit north', groupCode: 'KITN', gridId: north });
    await t.db.insert(sysUserGroup).values({ userId: member, groupId: group });
  });
  afterAll(() => t.close());

  const codes = async (userId: string) => {
    const page = await service.list({ code: 'K', pageSize: 10, curPage: 1 }, session(userId));
    return { codes: page.list.map((r) => r.code), noScope: 'noScope' in page ? page.noScope : undefined };
  };

  it('tells a user with neither the admin role nor a grouped grid why the list is empty', async () => {
    expect(await codes(groupless)).toEqual({ codes: [], noScope: true });
  });

  it('says nothing of scope on a list of shared parameters, which every user sees whole', async () => {
    const suppliers = await new ArchiveService(t.db, supplierArchive).list(
      { pageSize: 10, curPage: 1 },
      session(groupless),
    );
    expect(suppliers).not.toHaveProperty('noScope');
  });

  it('says nothing of scope to a group member or the administrator', async () => {
    expect(await codes(member)).toEqual({ codes: ['KN001'], noScope: undefined });
    expect(await codes(adminId)).toEqual({ codes: ['KN001', 'KS001'], noScope: undefined });
  });
});

describe('archive kit: what it derives from the contract and the table', () => {
  const fields = {
    supplierCode: field(z.string(), { widget: 'text', unique: true }),
    nickname: field(z.string(), { widget: 'text' }),
  };
  const withNickname = defineEntity({
    name: 'nicknamed',
    record: z.object({ id: IdSchema, ...fields }),
    create: z.strictObject(fields),
    pagePath: '/test/nicknamed',
    columns: [{ field: 'supplierCode', sortable: true }],
    filters: [],
  });

  it('refuses an entity whose input has a field the table has no column for, where the insert would drop it', () => {
    expect(() => defineArchive({ entity: withNickname, api: supplierApi as never, table: supplier })).toThrow(
      'supplier has no column nickname',
    );
  });

  it('refuses a business key no unique index of the table holds', () => {
    const keyed = { contact: field(z.string(), { widget: 'text', unique: true }) };
    const entity = defineEntity({
      name: 'keyed',
      record: z.object({ id: IdSchema, ...keyed }),
      create: z.strictObject(keyed),
      pagePath: '/test/keyed',
      columns: [{ field: 'contact' }],
      filters: [],
    });
    expect(() => defineArchive({ entity, api: supplierApi as never, table: supplier })).toThrow(
      'supplier.contact is declared unique but no unique index holds it',
    );
  });

  it("finds each business key's unique index, and names labels, form and detail from the contract", () => {
    expect(Object.fromEntries(Object.entries(supplierArchive.unique).map(([key, { index }]) => [key, index]))).toEqual({
      supplierCode: 'supplier_code_uq',
      supplierName: 'supplier_name_uq',
    });
    expect(supplierEntity.form).toEqual(['supplierCode', 'supplierName', 'contact', 'phone', 'address', 'remark']);
    expect(supplierEntity.detail).toContain('updateTime');
    expect(fieldMeta(SupplierCreateSchema.shape.contact)?.label).toBe('supplier.fields.contact');
    expect(fieldMeta(SupplierSchema.shape.createTime)?.label).toBe('supplier.fields.createTime');
  });

  it('refuses, when compiled, a stored row that names a field the table has no column for', () => {
    const stored = (v: { supplierName: string; nickname: string }) =>
      // @ts-expect-error: `nickname` has no column in `supplier`, so the insert would drop it.
      ({ ...v }) satisfies EveryField<typeof v, typeof supplier.$inferInsert>;
    expect(stored({ supplierName: 'A', nickname: 'B' })).toEqual({ supplierName: 'A', nickname: 'B' });
  });
});
