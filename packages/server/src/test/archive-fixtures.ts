import { type Page, ROOT_PARENT_ID } from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { newId } from '../db/ids';
import { consumer, dcu, meter, poc, powerGrid, sysGroup, sysUserGroup, tariff } from '../db/schema';
import type { TestApp } from './harness';
import { uniqueName } from './unique';

/*
 * Archive rows a test needs around the entity it tests, written straight into the tables (each
 * entity's own calls are tested in its own file).
 */

const code = (prefix: string) => `${prefix}${newId().slice(0, 10)}`.toUpperCase();

/** A grid node below `parentId` (a region at the top when none). */
export async function gridNode(t: TestApp, parentId: string = ROOT_PARENT_ID): Promise<string> {
  const id = newId();
  const gridCode = code('G');
  await t.db.insert(powerGrid).values({ id, gridCode, gridName: gridCode, parentId });
  return id;
}

export async function meterAt(
  t: TestApp,
  gridId: string,
  devAddr = code('M'),
  dcuId?: string,
): Promise<{ id: string; devAddr: string }> {
  const id = newId();
  await t.db.insert(meter).values({ id, devAddr, gridId, dcuId });
  return { id, devAddr };
}

export async function dcuAt(t: TestApp, gridId: string, dcuNo = code('D')): Promise<{ id: string; dcuNo: string }> {
  const id = newId();
  await t.db.insert(dcu).values({ id, dcuNo, gridId });
  return { id, dcuNo };
}

export async function consumerAt(
  t: TestApp,
  gridId: string,
  consumerName = 'Consumer',
): Promise<{ id: string; consumerCode: string }> {
  const id = newId();
  const consumerCode = code('C');
  await t.db
    .insert(consumer)
    .values({ id, consumerCode, consumerName, consumerType: 'residential', paymentMode: 'prepay', gridId });
  return { id, consumerCode };
}

/** A tariff of one rate all day, every day. */
export async function tariffOf(t: TestApp, tariffName = code('TOU')): Promise<{ id: string; tariffName: string }> {
  const id = newId();
  await t.db.insert(tariff).values({
    id,
    tariffName,
    calendar: {
      seasons: [{ start: '01-01', weekId: 1 }],
      weeks: [{ weekId: 1, days: [1, 1, 1, 1, 1, 1, 1] }],
      days: [{ dayId: 1, switches: [{ time: '00:00', rate: 1 }] }],
      specialDays: [],
    },
  });
  return { id, tariffName };
}

/** A meter supplying a consumer of its own through a POC, as operations need (spec §5). */
export async function suppliedMeter(
  t: TestApp,
  gridId: string,
  options: { protected?: boolean; dcuId?: string } = {},
): Promise<{ id: string; devAddr: string; consumerId: string }> {
  const m = await meterAt(t, gridId);
  if (options.dcuId) await t.db.update(meter).set({ dcuId: options.dcuId }).where(eq(meter.id, m.id));
  const c = await consumerAt(t, gridId);
  if (options.protected) await t.db.update(consumer).set({ protected: true }).where(eq(consumer.id, c.id));
  await t.db.insert(poc).values({ id: newId(), pocNo: code('P'), nature: 1, consumerId: c.id, meterId: m.id, gridId });
  return { ...m, consumerId: c.id };
}

/** A logged-in user whose only user group holds `gridId`, with a role of `uris`, in `orgId` (the root organisation without). */
export async function userOfGrid(t: TestApp, gridId: string, uris: readonly string[], orgId?: string): Promise<string> {
  const username = uniqueName('grid');
  const password = 'Passw0rd!';
  const roleId = await t.createRole(uniqueName('role'), uris);
  const userId = await t.createUser({ username, password, roleIds: [roleId], ...(orgId ? { orgId } : {}) });
  const groupId = newId();
  await t.db.insert(sysGroup).values({ id: groupId, groupName: username, groupCode: code('UG'), gridId });
  await t.db.insert(sysUserGroup).values({ userId, groupId });
  return t.login(username, password);
}

/** The rows (header first) of an archive export's workbook, each cell as exceljs read it. */
export async function exportedRows(t: TestApp, path: string, cookie: string, body: object = {}): Promise<unknown[][]> {
  const res = await t.app.http.inject({
    method: 'POST',
    url: `/apis/${path}/export`,
    payload: body,
    headers: { cookie },
  });
  if (res.statusCode !== 200) throw new Error(`export ${path}: ${res.statusCode} ${res.body}`);
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
  const rows: unknown[][] = [];
  workbook.worksheets[0]?.eachRow((row) => {
    rows.push((row.values as unknown[]).slice(1));
  });
  return rows;
}

/** The detail of the first record a list call finds for `filter`; throws when it finds none. */
export async function firstRecord<T>(
  t: TestApp,
  cookie: string,
  path: string,
  filter: Record<string, string>,
): Promise<T> {
  const list = await t.call<Page<{ id: string }>>(`/${path}/list`, filter, cookie);
  const found = list.body.data.list[0];
  if (!found) throw new Error(`no ${path} ${JSON.stringify(filter)}`);
  return (await t.call<T>(`/${path}/detail`, { id: found.id }, cookie)).body.data;
}
