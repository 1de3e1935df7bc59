import { randomBytes } from 'node:crypto';
import { flattenResourceTree, ROOT_PARENT_ID } from '@meterdesk/contracts';
import { eq, sql } from 'drizzle-orm';
import { hashPassword } from '../auth/password';
import type { DemoArchive } from '../config';
import type { SecretBox } from '../crypto/secret-box';
import type { Db } from '../db/driver';
import { stableId } from '../db/ids';
import { sysOrg, sysResource, sysRole, sysRoleResource, sysUser, sysUserRole } from '../db/schema';
import { ADMIN_ROLE_ID, OPERATOR_ROLE_ID, ROOT_ORG_ID, resourceIdOf } from '../db/seeded-ids';
import { seededRemark } from '../db/seeded-roles';
import { mapTariffTexts } from '../modules/parameter/tariff-texts';
import { seedCatalogues } from './catalogue-seed';
import { archiveIsEmpty, seedDemoArchive } from './demo-archive';
import { seedDemoCollection } from './demo-collection';
import { seedDemoParamTemplates } from './demo-param-templates';
import { seedReferenceData } from './reference-data';

/** Pages of these kinds change data; the read-only operator role does not get them. */
const WRITE_SEGMENTS = new Set([
  'add',
  'Add',
  'edit',
  'Edit',
  'maintain',
  'replace',
  'addObis',
  'assignUser',
  'associated',
  'Associated',
]);
const OPERATOR_EXCLUDED_AREAS = ['/sysMGT'];

export interface SeedOptions {
  adminPassword?: string | undefined;
  operatorPassword?: string | undefined;
  /** When to add the demo archive (config `demoArchive`), and the box that seals its keys; never without it. */
  demo?: { when: DemoArchive; box: SecretBox };
}

export interface SeedResult {
  /** Set only on the first start when no ADMIN_PASSWORD was given. */
  generatedAdminPassword?: string;
  /** The demo archive was added by this start. */
  demoArchive?: true;
  /** Tariff texts of meters and POCs from before tariffs were records that still name no tariff. */
  unmappedTariffTexts?: number;
}

/**
 * Runs at every start. The resource tree is brought up to date (missing nodes added, none
 * removed or renamed, so an administrator's edits stay) and the admin role gets every
 * resource. Users, roles and the root organisation are created only on the first start, and so is
 * the demo archive unless `options.demo` says otherwise: all of it in one transaction, so a start
 * that fails half-way is a first start again.
 */
export async function seed(db: Db, options: SeedOptions): Promise<SeedResult> {
  const result: SeedResult = {};
  await db.transaction(async (tx) => {
    const flat = flattenResourceTree();
    await tx
      .insert(sysResource)
      .values(
        flat.map(({ seed, parentUri, order }) => ({
          id: resourceIdOf(seed.uri),
          resourceName: seed.zh,
          resourceNameEn: seed.en,
          resourceType: seed.type,
          resourceUri: seed.uri,
          icon: seed.icon ?? '',
          parentId: parentUri ? resourceIdOf(parentUri) : ROOT_PARENT_ID,
          orderNum: order,
        })),
      )
      .onConflictDoNothing();

    const firstStart =
      (await tx.select({ id: sysRole.id }).from(sysRole).where(eq(sysRole.id, ADMIN_ROLE_ID))).length === 0;
    if (firstStart) {
      await tx.insert(sysOrg).values({ id: ROOT_ORG_ID, orgName: 'Meterdesk', orgCode: 'ROOT', pid: ROOT_PARENT_ID });
      await tx.insert(sysRole).values([
        { id: ADMIN_ROLE_ID, roleName: 'admin', remark: seededRemark(ADMIN_ROLE_ID), builtIn: true },
        { id: OPERATOR_ROLE_ID, roleName: 'operator', remark: seededRemark(OPERATOR_ROLE_ID) },
      ]);
      const operatorResources = flat.filter(({ seed }) => {
        const segment = seed.uri.slice(seed.uri.lastIndexOf('/') + 1);
        return (
          seed.type !== 3 &&
          !WRITE_SEGMENTS.has(segment) &&
          !OPERATOR_EXCLUDED_AREAS.some((a) => seed.uri === a || seed.uri.startsWith(`${a}/`))
        );
      });
      await tx
        .insert(sysRoleResource)
        .values(
          operatorResources.map(({ seed }) => ({ roleId: OPERATOR_ROLE_ID, resourceId: resourceIdOf(seed.uri) })),
        );

      const adminPassword = options.adminPassword ?? randomBytes(9).toString('base64url').slice(0, 12);
      if (!options.adminPassword) result.generatedAdminPassword = adminPassword;
      const adminId = stableId('user:admin');
      await tx.insert(sysUser).values({
        id: adminId,
        username: 'admin',
        fullName: 'Administrator',
        passwordHash: await hashPassword(adminPassword),
        orgId: ROOT_ORG_ID,
      });
      await tx.insert(sysUserRole).values({ userId: adminId, roleId: ADMIN_ROLE_ID });
      if (options.operatorPassword) {
        const operatorId = stableId('user:operator');
        await tx.insert(sysUser).values({
          id: operatorId,
          username: 'operator',
          fullName: 'Demo operator',
          passwordHash: await hashPassword(options.operatorPassword),
          orgId: ROOT_ORG_ID,
        });
        await tx.insert(sysUserRole).values({ userId: operatorId, roleId: OPERATOR_ROLE_ID });
      }
    }

    await seedReferenceData(tx);
    await seedCatalogues(tx);
    const demo = options.demo;
    if (
      demo &&
      (demo.when === 'whenEmpty' || (demo.when === 'firstStart' && firstStart)) &&
      (await archiveIsEmpty(tx))
    ) {
      await seedDemoArchive(tx, demo.box);
      await seedDemoCollection(tx);
      await seedDemoParamTemplates(tx);
      result.demoArchive = true;
    }
    const unmapped = await mapTariffTexts(tx);
    if (unmapped) result.unmappedTariffTexts = unmapped;
    await tx.execute(sql`
      insert into sys_role_resource (role_id, resource_id)
      select r.id, res.id from sys_role r cross join sys_resource res where r.built_in
      on conflict do nothing`);
  });
  return result;
}
