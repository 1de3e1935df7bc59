import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fieldMeta } from './common/entity';
import { BROWSER_TOPICS } from './common/topics';
import * as contracts from './index';
import { flattenResourceTree, RES, RESOURCE_TREE } from './permissions';
import * as noticeApi from './system/notice.api';
import { noticeEntity } from './system/notice.api';
import { ResourceCreateSchema, resourceEntity } from './system/resource.schema';
import { systemLogEntity } from './system/syslog.api';
import { userEntity } from './system/user.schema';

describe('resource tree', () => {
  const flat = flattenResourceTree();

  it('has unique uris and every guarded uri the code names', () => {
    const uris = flat.map((n) => n.seed.uri);
    expect(new Set(uris).size).toBe(uris.length);
    for (const uri of Object.values(RES)) expect(uris).toContain(uri);
    for (const { resource } of Object.values(BROWSER_TOPICS))
      for (const uri of resource === null ? [] : typeof resource === 'string' ? [resource] : resource)
        expect(uris).toContain(uri);
  });

  it("holds every resource an operation needs, so each can be granted (a detail page's export too)", () => {
    const uris = new Set(flat.map((n) => n.seed.uri));
    const operations: { path: string; access: unknown }[] = [];
    const collect = (value: unknown, depth: number) => {
      if (!value || typeof value !== 'object' || depth > 3) return;
      if ('path' in value && 'access' in value && typeof value.path === 'string')
        operations.push(value as { path: string; access: unknown });
      else for (const inner of Object.values(value)) collect(inner, depth + 1);
    };
    for (const exported of Object.values(contracts)) collect(exported, 0);
    expect(operations.length).toBeGreaterThan(100);
    const missing = operations.flatMap(({ path, access }) => {
      if (typeof access !== 'object' || access === null) return [];
      const needed = access as { anyOf: string[]; allOf?: string[] };
      return [...needed.anyOf, ...(needed.allOf ?? [])].filter((uri) => !uris.has(uri)).map((uri) => `${path} ${uri}`);
    });
    expect(missing).toEqual([]);
  });

  it('covers every area and page of spec §2', () => {
    const uris = new Set(flat.map((n) => n.seed.uri));
    const expected = [
      '/dashboard',
      '/sysMGT/organizationMGT/detail',
      '/sysMGT/roleMGT/assignUser',
      '/sysMGT/notifyMGT/announcement',
      '/sysMGT/notifyMGT/subscribe',
      '/archiveSetting/meter/maintain',
      '/archiveSetting/poc/replace',
      '/archiveSetting/gis',
      '/serviceRequest/scheduledTask/taskMGT/view/detail',
      '/parameterSetting/meterUpgrade/associated',
      '/parameterSetting/tariffManagement/Associated',
      '/parameterSetting/obisManagement/viewObis',
      '/dataAnalytic/deviceOnlineReport/deviceOnlineDetail',
      '/report/dataCollectionReport',
      '/paymentMGT/shoppingEquipmentReport',
    ];
    for (const uri of expected) expect(uris, uri).toContain(uri);
    expect(RESOURCE_TREE.map((n) => n.uri)).toEqual([
      '/dashboard',
      '/archiveSetting',
      '/serviceRequest',
      '/parameterSetting',
      '/dataAnalytic',
      '/report',
      '/paymentMGT',
      '/sysMGT',
    ]);
  });

  it('puts areas at the root and never hangs anything under a button', () => {
    for (const { seed, parentUri } of flat) {
      expect(seed.type === 0, seed.uri).toBe(parentUri === null);
      if (seed.type === 3) expect(seed.children).toEqual([]);
      expect(seed.zh.length * seed.en.length, seed.uri).toBeGreaterThan(0);
    }
  });
});

describe('resource entity declaration', () => {
  it('declares a label for every column, filter and form field', () => {
    const shape = resourceEntity.record.shape;
    for (const f of [...resourceEntity.form, ...resourceEntity.filters.map((filter) => filter.field)]) {
      expect(fieldMeta(shape[f])?.label, f).toMatch(/^resource\.fields\./);
    }
  });

  it('refuses unknown fields and names the bad ones', () => {
    const result = ResourceCreateSchema.safeParse({ resourceName: '', extra: 1 });
    expect(result.success).toBe(false);
    const issues = result.error!.issues.map((i) => [i.path.join('.'), i.message]);
    expect(issues).toEqual(expect.arrayContaining([['resourceName', 'mandatory']]));
    expect(result.error!.issues.some((i) => i.code === 'unrecognized_keys')).toBe(true);
  });
});

describe('list queries derived from the entity', () => {
  it('takes every declared filter and nothing else', () => {
    const ok = userEntity.listQuery.safeParse({ username: 'ad', status: 'enabled', orgId: 'a'.repeat(32), phone: '1' });
    expect(ok.success).toBe(true);
    const unknown = userEntity.listQuery.safeParse({ nickname: 'x' });
    expect(unknown.success).toBe(false);
    expect(userEntity.listQuery.safeParse({ status: 'sleeping' }).success).toBe(false);
  });

  it('sorts only by the columns declared sortable', () => {
    expect(userEntity.listQuery.safeParse({ sortField: 'username', sortOrder: 'descend' }).success).toBe(true);
    const refused = userEntity.listQuery.safeParse({ sortField: 'passwordHash' });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.path).toEqual(['sortField']);
    expect(userEntity.listQuery.safeParse({ sortField: 'orgName' }).success).toBe(false);
  });

  it('refuses any sortField on a list without sortable columns', () => {
    expect(noticeEntity.listQuery.safeParse({ sortField: 'sendTime' }).success).toBe(false);
    expect(noticeApi.getnoticetemplatepage.request.safeParse({ sortField: 'x' }).success).toBe(false);
    expect(noticeApi.getnoticebatchpage.request.safeParse({ sortField: 'x' }).success).toBe(false);
  });

  it('makes a required date range two required keys', () => {
    expect(systemLogEntity.listQuery.safeParse({}).success).toBe(false);
    const range = { startTime: '2026-01-01T00:00:00Z', endTime: '2026-01-02T00:00:00Z' };
    expect(systemLogEntity.listQuery.safeParse(range).success).toBe(true);
  });
});

/**
 * Where a field with meta and no label is reachable from what the contracts export: an entity names its
 * own fields' labels, so a field outside every entity (a form of its own, a filter) must name its own.
 */
function unlabelled(value: unknown, path: string, seen = new Set<unknown>()): string[] {
  if (typeof value !== 'object' || value === null || seen.has(value)) return [];
  seen.add(value);
  if (!(value instanceof z.ZodType)) {
    return Object.entries(value).flatMap(([key, member]) => unlabelled(member, `${path}.${key}`, seen));
  }
  const meta = fieldMeta(value);
  const def = value._zod.def as unknown as Record<string, unknown>;
  const shape = (def.shape ?? {}) as Record<string, unknown>;
  return [
    ...(meta && !meta.label ? [path] : []),
    ...Object.entries(shape).flatMap(([key, member]) => unlabelled(member, `${path}.${key}`, seen)),
    ...['innerType', 'element', 'in', 'out'].flatMap((key) => unlabelled(def[key], path, seen)),
    ...((def.options ?? []) as unknown[]).flatMap((option) => unlabelled(option, path, seen)),
  ];
}

describe('field labels', () => {
  it('labels every field the contracts export, by convention within an entity or by its own label elsewhere', () => {
    expect(unlabelled(contracts, 'contracts')).toEqual([]);
  });
});
