import {
  type BatchDeleteResult,
  type Grid,
  type GridCreate,
  type GridNode,
  type Page,
  RES,
  ROOT_PARENT_ID,
} from '@meterdesk/contracts';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId, stableId } from '../../db/ids';
import { commModule, consumer, dcu, meter, poc, sysGroup, sysUserGroup } from '../../db/schema';
import { ADMIN_ROLE_ID } from '../../db/seeded-ids';
import { gridScope, resolveScope } from '../../rbac/scope';
import { createTestApp, type TestApp } from '../../test/harness';

/** The demo grid every start seeds (seed/reference-data.ts): CR → NS → F1 → T1. */
const REGION = stableId('grid:region');
const SUBSTATION = stableId('grid:substation');
const FEEDER = stableId('grid:feeder');
const AREA = stableId('grid:transformer');

const names = (nodes: readonly GridNode[]): unknown[] =>
  nodes.map((n) => (n.children.length ? [n.gridName, names(n.children)] : n.gridName));

describe('power grid', () => {
  let t: TestApp;
  let admin: string;
  const node = (over: Partial<GridCreate> & Pick<GridCreate, 'gridCode' | 'parentId'>): GridCreate => ({
    gridName: `Node ${over.gridCode}`,
    gridType: 0,
    capacity: null,
    primaryPocId: null,
    remark: '',
    ...over,
  });
  const save = (body: unknown, cookie = admin) => t.call<{ id: string }>('/powergrid/save', body, cookie);
  const added = async (body: GridCreate, cookie = admin) => {
    const res = await save(body, cookie);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.id;
  };
  const detail = (id: string, cookie = admin) => t.call<Grid>('/powergrid/detail', { id }, cookie);
  /** The stored node as an update body: everything the form sends, changed by `over`. */
  const edited = async (id: string, over: Partial<GridCreate>) => {
    const { gridCode, gridName, gridType, parentId, capacity, primaryPocId, remark } = (await detail(id)).body.data;
    return { id, gridCode, gridName, gridType, parentId, capacity, primaryPocId, remark, ...over };
  };
  const tree = async (cookie = admin) => (await t.call<GridNode[]>('/powergrid/tree', {}, cookie)).body.data;
  const issue = (res: { body: unknown }) => (res.body as { data: { issues: { field: string; key: string }[] } }).data;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
  });
  afterAll(() => t.close());

  it('adds a hierarchy, nests it in the tree, details, edits, lists and checks codes', async () => {
    const south = await added(node({ gridCode: 'SR', gridName: 'South Region', parentId: ROOT_PARENT_ID }));
    const sub = await added(node({ gridCode: 'SS1', gridName: 'Bay Substation', gridType: 1, parentId: south }));
    const feeder = await added(node({ gridCode: 'SF1', gridName: 'Feeder F1', gridType: 2, parentId: sub }));
    const area = await added(
      node({ gridCode: 'ST1', gridName: 'Harbour Area', gridType: 3, parentId: feeder, capacity: 630.5 }),
    );

    const all = await tree();
    expect(names(all.filter((n) => n.gridCode === 'SR'))).toEqual([
      ['South Region', [['Bay Substation', [['Feeder F1', ['Harbour Area']]]]]],
    ]);
    expect((await detail(area)).body.data).toMatchObject({
      gridCode: 'ST1',
      gridType: 3,
      parentId: feeder,
      parentName: 'Feeder F1',
      capacity: 630.5,
      primaryPocId: null,
      primaryPocNo: '',
    });

    expect((await t.call('/powergrid/update', await edited(area, { remark: 'by the docks' }), admin)).status).toBe(200);
    expect((await detail(area)).body.data.remark).toBe('by the docks');

    const list = await t.call<Page<Grid>>('/powergrid/list', { sortField: 'gridCode', pageSize: 100 }, admin);
    const codes = list.body.data.list.map((g) => g.gridCode);
    expect(codes).toEqual(expect.arrayContaining(['CR', 'NS', 'F1', 'T1', 'SR', 'SS1', 'SF1', 'ST1']));
    expect(codes).toEqual([...codes].sort());

    const check = (value: string, id?: string) =>
      t.call<{ existed: boolean }>('/powergrid/check', { field: 'gridCode', value, id }, admin);
    expect((await check('st1')).body.data).toEqual({ existed: true });
    expect((await check('ST1', area)).body.data).toEqual({ existed: false });
    expect((await t.call('/powergrid/check', { field: 'gridName', value: 'x' }, admin)).status).toBe(400);
    expect((await detail(newId())).status).toBe(404);
  });

  it('keeps codes unique and names unique among siblings, in any case', async () => {
    const a = await added(node({ gridCode: 'UA', gridName: 'Unique A', parentId: ROOT_PARENT_ID }));
    const b = await added(node({ gridCode: 'UB', gridName: 'Unique B', parentId: ROOT_PARENT_ID }));
    const code = await save(node({ gridCode: 'ua', gridName: 'Other', parentId: ROOT_PARENT_ID }));
    expect(code.status).toBe(409);
    expect(issue(code)).toMatchObject({ issues: [{ field: 'gridCode', key: 'existed' }] });

    await added(node({ gridCode: 'UA1', gridName: 'Depot', gridType: 1, parentId: a }));
    const sibling = await save(node({ gridCode: 'UA2', gridName: 'DEPOT', gridType: 1, parentId: a }));
    expect(sibling.status).toBe(409);
    expect(issue(sibling)).toMatchObject({ issues: [{ field: 'gridName', key: 'existed' }] });
    // The same name under another parent is another place.
    const elsewhere = await added(node({ gridCode: 'UB1', gridName: 'Depot', gridType: 1, parentId: b }));
    // Moving it beside its namesake is the same conflict.
    const moved = await t.call('/powergrid/update', await edited(elsewhere, { parentId: a }), admin);
    expect(moved.status).toBe(409);
    expect(issue(moved)).toMatchObject({ issues: [{ field: 'gridName', key: 'existed' }] });
  });

  it('refuses bad input with the field named, never a 5xx', async () => {
    const bad = await save({
      gridCode: 'X 1!',
      gridName: '  ',
      gridType: 7,
      parentId: 'nope',
      capacity: -1,
    });
    expect(bad.status).toBe(400);
    expect(
      issue(bad)
        .issues.map((i) => i.field)
        .sort(),
    ).toEqual(['capacity', 'gridCode', 'gridName', 'gridType', 'parentId'].sort());
    expect((await save({ ...node({ gridCode: 'Z1', parentId: ROOT_PARENT_ID }), extra: 1 })).status).toBe(400);
    expect((await save(node({ gridCode: 'Z2', parentId: 'a'.repeat(32) }))).body).toMatchObject({
      code: 400,
      data: { issues: [{ field: 'parentId', key: 'gridNotFound' }] },
    });
    expect((await t.call('/powergrid/list', { sortField: 'remark' }, admin)).status).toBe(400);
  });

  it('places each type below a higher level, and never a node under itself', async () => {
    const region = await added(node({ gridCode: 'TR', gridName: 'Type Region', parentId: ROOT_PARENT_ID }));
    const feeder = await added(node({ gridCode: 'TF', gridName: 'Type Feeder', gridType: 2, parentId: region }));
    const area = await added(node({ gridCode: 'TA', gridName: 'Type Area', gridType: 3, parentId: feeder }));

    const notDeeper = await save(node({ gridCode: 'TS', gridType: 2, parentId: feeder }));
    expect(issue(notDeeper)).toMatchObject({ issues: [{ field: 'gridType', key: 'gridTypeUnderParent' }] });
    const regionUnderRegion = await save(node({ gridCode: 'TS', gridType: 0, parentId: region }));
    expect(issue(regionUnderRegion)).toMatchObject({ issues: [{ key: 'gridTypeUnderParent' }] });

    // Its child is a transformer area: the feeder cannot become one.
    const overChild = await t.call('/powergrid/update', await edited(feeder, { gridType: 3 }), admin);
    expect(issue(overChild)).toMatchObject({ issues: [{ field: 'gridType', key: 'gridTypeOverChildren' }] });

    const underItself = await t.call('/powergrid/update', await edited(feeder, { parentId: feeder }), admin);
    expect(underItself.status).toBe(400);
    expect(issue(underItself)).toMatchObject({ issues: [{ field: 'parentId', key: 'gridParentCycle' }] });
    const underChild = await t.call('/powergrid/update', await edited(region, { parentId: area, gridType: 0 }), admin);
    expect(issue(underChild)).toMatchObject({ issues: [{ field: 'parentId', key: 'gridParentCycle' }] });

    // A move to a proper place goes through, with the branch below it.
    const other = await added(node({ gridCode: 'TR2', gridName: 'Type Region 2', parentId: ROOT_PARENT_ID }));
    expect((await t.call('/powergrid/update', await edited(feeder, { parentId: other }), admin)).status).toBe(200);
    const moved = (await tree()).find((n) => n.id === other);
    expect(moved && names([moved])).toEqual([['Type Region 2', [['Type Feeder', ['Type Area']]]]]);
  });

  it('gives only a transformer area a capacity and a primary-table POC placed in it', async () => {
    const region = await added(node({ gridCode: 'PR', gridName: 'POC Region', parentId: ROOT_PARENT_ID }));
    const area = await added(node({ gridCode: 'PA', gridName: 'POC Area', gridType: 3, parentId: region }));
    const otherArea = await added(node({ gridCode: 'PB', gridName: 'POC Area B', gridType: 3, parentId: region }));

    const capacity = await save(node({ gridCode: 'PF', gridType: 2, parentId: region, capacity: 100 }));
    expect(issue(capacity)).toMatchObject({ issues: [{ field: 'capacity', key: 'gridAreaOnly' }] });
    const [primary, consumerPoc, otherAreas] = [newId(), newId(), newId()];
    await t.db.insert(poc).values([
      { id: primary, pocNo: 'PRI01', nature: 3, gridId: area },
      { id: consumerPoc, pocNo: 'CON01', nature: 1, gridId: area },
      { id: otherAreas, pocNo: 'PRI02', nature: 3, gridId: otherArea },
    ]);
    const pocOnFeeder = await save(node({ gridCode: 'PF', gridType: 2, parentId: region, primaryPocId: primary }));
    expect(issue(pocOnFeeder)).toMatchObject({ issues: [{ field: 'primaryPocId', key: 'gridAreaOnly' }] });
    for (const id of [consumerPoc, otherAreas, newId()]) {
      const res = await t.call('/powergrid/update', await edited(area, { primaryPocId: id }), admin);
      expect(issue(res), id).toMatchObject({ issues: [{ field: 'primaryPocId', key: 'gridPrimaryPocInvalid' }] });
    }
    const ok = await t.call('/powergrid/update', await edited(area, { primaryPocId: primary, capacity: 400 }), admin);
    expect(ok.status).toBe(200);
    expect((await detail(area)).body.data).toMatchObject({
      primaryPocId: primary,
      primaryPocNo: 'PRI01',
      capacity: 400,
    });
    // A new node holds no POC yet, so it cannot name one.
    const fresh = await save(node({ gridCode: 'PC', gridType: 3, parentId: region, primaryPocId: primary }));
    expect(issue(fresh)).toMatchObject({ issues: [{ field: 'primaryPocId', key: 'gridPrimaryPocInvalid' }] });
  });

  it('deletes a batch, keeping each node that still holds something and saying what', async () => {
    const region = await added(node({ gridCode: 'DR', gridName: 'Delete Region', parentId: ROOT_PARENT_ID }));
    const holders: Record<string, string> = {};
    for (const key of ['Parent', 'Consumers', 'Meters', 'Modules', 'Pocs', 'Dcus', 'Groups', 'Free']) {
      holders[key] = await added(node({ gridCode: `D${key}`, gridName: key, gridType: 1, parentId: region }));
    }
    await added(node({ gridCode: 'DChild', gridName: 'Child', gridType: 2, parentId: holders.Parent! }));
    await t.db.insert(consumer).values({
      id: newId(),
      consumerCode: 'DC0001',
      consumerName: 'Held',
      consumerType: 'residential',
      paymentMode: 'prepay',
      gridId: holders.Consumers!,
    });
    await t.db.insert(meter).values({ id: newId(), devAddr: 'DM000001', gridId: holders.Meters! });
    await t.db
      .insert(commModule)
      .values({ id: newId(), moduleNo: 'DMOD01', deviceType: 2, workingMode: 'client', gridId: holders.Modules! });
    await t.db.insert(poc).values({ id: newId(), pocNo: 'DPOC01', nature: 1, gridId: holders.Pocs! });
    await t.db.insert(dcu).values({ id: newId(), dcuNo: 'DDCU01', gridId: holders.Dcus! });
    await t.db
      .insert(sysGroup)
      .values({ id: newId(), groupName: 'Delete crew', groupCode: 'DCREW', gridId: holders.Groups! });

    const ghost = newId();
    const res = await t.call<BatchDeleteResult>(
      '/powergrid/delete',
      { ids: [...Object.values(holders), ghost] },
      admin,
    );
    expect(res.body.data).toEqual({
      deleted: 1,
      failures: [
        { id: holders.Parent, name: 'DParent', key: 'gridHasChildren' },
        { id: holders.Consumers, name: 'DConsumers', key: 'gridHasConsumers' },
        { id: holders.Meters, name: 'DMeters', key: 'gridHasMeters' },
        { id: holders.Modules, name: 'DModules', key: 'gridHasModules' },
        { id: holders.Pocs, name: 'DPocs', key: 'gridHasPocs' },
        { id: holders.Dcus, name: 'DDcus', key: 'gridHasDcus' },
        { id: holders.Groups, name: 'DGroups', key: 'gridHasGroups' },
        { id: ghost, name: '', key: 'notFound' },
      ],
    });
    expect((await detail(holders.Free!)).status).toBe(404);
    expect((await detail(holders.Parent!)).status).toBe(200);
  });

  it('exports the nodes with their type in the caller language', async () => {
    const exported = async (language: 1 | 2) => {
      await t.call('/sysuser/changelanguage', { type: language }, admin);
      const res = await t.app.http.inject({
        method: 'POST',
        url: '/apis/powergrid/export',
        payload: { columns: ['gridCode', 'gridType', 'parentName'] },
        headers: { cookie: admin },
      });
      expect(res.statusCode).toBe(200);
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
      const rows = workbook.worksheets[0]!.getSheetValues().slice(1) as unknown[][];
      return rows.map((row) => row.slice(1));
    };
    const english = await exported(1);
    expect(english[0]).toEqual(['Grid code', 'Type', 'Parent node']);
    expect(english).toContainEqual(['T1', 'Transformer area', 'Feeder F1']);
    expect(english).toContainEqual(['CR', 'Region']);
    const chinese = await exported(2);
    expect(chinese[0]).toEqual(['电网编码', '类型', '上级节点']);
    expect(chinese).toContainEqual(['NS', '变电站', 'Central Region']);
    await t.call('/sysuser/changelanguage', { type: 1 }, admin);
  });

  describe('data scope', () => {
    let north: string;
    let twoGroups: string;
    let nobody: string;
    let elsewhere: string;
    let reader: string;

    beforeAll(async () => {
      const role = await t.createRole('grid-keeper', [
        '/archiveSetting',
        RES.dashboard,
        '/archiveSetting/powerGrid',
        '/archiveSetting/powerGrid/add',
        '/archiveSetting/powerGrid/edit',
        '/archiveSetting/powerGrid/delete',
        '/archiveSetting/powerGrid/export',
      ]);
      elsewhere = await added(node({ gridCode: 'ER', gridName: 'East Region', parentId: ROOT_PARENT_ID }));
      const group = async (code: string, gridId: string) => {
        const id = newId();
        await t.db.insert(sysGroup).values({ id, groupName: code, groupCode: code, gridId });
        return id;
      };
      const northCrew = await group('NCREW', SUBSTATION);
      const eastCrew = await group('ECREW', elsewhere);
      const user = async (username: string, groups: string[], roleIds = [role]) => {
        const id = await t.createUser({ username, password: 'Grid123', roleIds });
        if (groups.length) await t.db.insert(sysUserGroup).values(groups.map((groupId) => ({ userId: id, groupId })));
        return t.login(username, 'Grid123');
      };
      north = await user('north.keeper', [northCrew]);
      twoGroups = await user('two.keeper', [northCrew, eastCrew]);
      nobody = await user('no.group', []);
      const consumerRole = await t.createRole('consumer-clerk', ['/archiveSetting', '/archiveSetting/consumer']);
      reader = await user('consumer.clerk', [northCrew], [consumerRole]);
    });

    it('shows a user only the nodes of their groups and below, each group node a root', async () => {
      // The user's group holds North Substation: they see exactly the admin's view of that branch.
      const branch = (await tree()).flatMap((region) => region.children).filter((n) => n.id === SUBSTATION);
      expect(names(await tree(north))).toEqual(names(branch));
      const codesIn = (nodes: readonly GridNode[]): string[] =>
        nodes.flatMap((n) => [n.gridCode, ...codesIn(n.children)]);
      const two = await tree(twoGroups);
      expect(two.map((n) => n.gridName).sort()).toEqual(['East Region', 'North Substation']);
      const list = await t.call<Page<Grid>>('/powergrid/list', { pageSize: 100 }, north);
      expect(list.body.data.list.map((g) => g.gridCode).sort()).toEqual(codesIn(branch).sort());
      expect(list.body.data.total).toBe(codesIn(branch).length);
      expect((await tree(nobody)).length).toBe(0);
      expect((await t.call<Page<Grid>>('/powergrid/list', {}, nobody)).body.data.total).toBe(0);
      expect(names(await tree()).length).toBeGreaterThan(1);
    });

    it('answers 404 for a node outside, exactly as for a missing one', async () => {
      expect((await detail(FEEDER, north)).status).toBe(200);
      expect((await detail(REGION, north)).status).toBe(404);
      expect((await detail(elsewhere, north)).status).toBe(404);
      const update = await t.call('/powergrid/update', await edited(REGION, { remark: 'mine' }), north);
      expect(update.status).toBe(404);
      const removed = await t.call<BatchDeleteResult>('/powergrid/delete', { ids: [elsewhere] }, north);
      expect(removed.body.data).toEqual({ deleted: 0, failures: [{ id: elsewhere, name: '', key: 'notFound' }] });
      expect((await detail(elsewhere)).status).toBe(200);
    });

    it('adds and moves only within the scope; a top node of the scope keeps its parent', async () => {
      const outside = await save(node({ gridCode: 'NX', gridType: 1, parentId: REGION }), north);
      expect(issue(outside)).toMatchObject({ issues: [{ field: 'parentId', key: 'gridNotFound' }] });
      const atRoot = await save(node({ gridCode: 'NX', parentId: ROOT_PARENT_ID }), north);
      expect(issue(atRoot)).toMatchObject({ issues: [{ field: 'parentId', key: 'gridNotFound' }] });

      const own = await added(
        node({ gridCode: 'NF9', gridName: 'Feeder N9', gridType: 2, parentId: SUBSTATION }),
        north,
      );
      const away = await t.call('/powergrid/update', await edited(own, { parentId: elsewhere }), north);
      expect(issue(away)).toMatchObject({ issues: [{ field: 'parentId', key: 'gridNotFound' }] });

      // Its own top node: edited in place, yes; moved out from under its parent, no.
      const kept = await t.call('/powergrid/update', await edited(SUBSTATION, { remark: 'north' }), north);
      expect(kept.status).toBe(200);
      const lifted = await t.call('/powergrid/update', await edited(SUBSTATION, { parentId: elsewhere }), twoGroups);
      expect(issue(lifted)).toMatchObject({ issues: [{ field: 'parentId', key: 'gridScopeRootFixed' }] });
      expect((await detail(SUBSTATION)).body.data.parentId).toBe(REGION);

      const exported = await t.app.http.inject({
        method: 'POST',
        url: '/apis/powergrid/export',
        payload: { columns: ['gridCode'] },
        headers: { cookie: north },
      });
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.load(exported.rawPayload as unknown as ArrayBuffer);
      const codes = workbook.worksheets[0]!.getColumn(1).values.slice(2);
      const branch = (await tree()).flatMap((region) => region.children).filter((n) => n.id === SUBSTATION);
      const codesIn = (nodes: readonly GridNode[]): string[] =>
        nodes.flatMap((n) => [n.gridCode, ...codesIn(n.children)]);
      expect([...codes].sort()).toEqual(codesIn(branch).sort());
      expect(codes).toContain('NF9');
    });

    it('serves the grid tree to every page that picks a grid, scoped, and nothing else there', async () => {
      const picked = await tree(reader);
      expect(picked.map((n) => n.gridName)).toEqual(['North Substation']);
      expect(picked[0]!.children.map((n) => n.gridName)).toContain('Feeder F1');
      expect((await t.call('/powergrid/list', {}, reader)).status).toBe(403);
      expect((await save(node({ gridCode: 'RX', gridType: 2, parentId: SUBSTATION }), reader)).status).toBe(403);
    });
  });

  it('limits a query on any archive table to the grid subtree of the caller (gridScope)', async () => {
    const westRegion = await added(node({ gridCode: 'WR', gridName: 'West Region', parentId: ROOT_PARENT_ID }));
    const westArea = await added(node({ gridCode: 'WA', gridName: 'West Area', gridType: 3, parentId: westRegion }));
    const crew = newId();
    await t.db.insert(sysGroup).values({ id: crew, groupName: 'Area crew', groupCode: 'ACREW', gridId: FEEDER });
    const userId = await t.createUser({ username: 'area.keeper', password: 'Grid123' });
    await t.db.insert(sysUserGroup).values({ userId, groupId: crew });
    const customer = (code: string, gridId: string) => ({
      id: newId(),
      consumerCode: code,
      consumerName: code,
      consumerType: 'residential',
      paymentMode: 'postpay',
      gridId,
    });
    await t.db
      .insert(consumer)
      .values([
        customer('SCOPE1', FEEDER),
        customer('SCOPE2', AREA),
        customer('SCOPE3', SUBSTATION),
        customer('SCOPE4', westArea),
      ]);
    const codes = async (id: string) => {
      const scope = await resolveScope(t.db, id);
      const rows = await t.db.select().from(consumer).where(gridScope(scope, consumer.gridId));
      return rows
        .map((r) => r.consumerCode)
        .filter((c) => c.startsWith('SCOPE'))
        .sort();
    };
    expect(await codes(userId)).toEqual(['SCOPE1', 'SCOPE2']);
    const lonely = await t.createUser({ username: 'lonely', password: 'Grid123' });
    expect(await codes(lonely)).toEqual([]);
    const chief = await t.createUser({ username: 'grid.chief', password: 'Grid123', roleIds: [ADMIN_ROLE_ID] });
    expect(await codes(chief)).toEqual(['SCOPE1', 'SCOPE2', 'SCOPE3', 'SCOPE4']);
  });
});
