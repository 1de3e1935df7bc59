import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/harness';
import { newId } from './ids';
import { sysOrg } from './schema';
import { ROOT_ORG_ID } from './seeded-ids';
import { uniqueViolation } from './unique';

describe('uniqueness as the checks see it', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
  });
  afterAll(() => t.close());

  it('refuses a name or code differing only in case, naming the field and the thing', async () => {
    const org = (over: Record<string, unknown>) => ({ orgName: 'Depot', orgCode: 'DEP', pid: ROOT_ORG_ID, ...over });
    expect((await t.call('/sysorg/savesysorg', org({}), admin)).status).toBe(200);
    const name = await t.call('/sysorg/savesysorg', org({ orgName: 'DEPOT', orgCode: 'D2' }), admin);
    expect(name.body).toMatchObject({
      code: 409,
      msg: 'existed',
      data: { issues: [{ field: 'orgName', key: 'existed', message: 'Organisation name existed' }] },
    });
    const code = await t.call('/sysorg/savesysorg', org({ orgName: 'Depot 2', orgCode: 'dep' }), admin);
    expect(code.body).toMatchObject({ code: 409, data: { issues: [{ field: 'orgCode', key: 'existed' }] } });
  });

  it('turns a unique violation the database raises into 409 existed, never a 500', async () => {
    const error = await t.db
      .insert(sysOrg)
      .values({ id: newId(), orgName: 'meterdesk', orgCode: 'X9', pid: ROOT_ORG_ID })
      .then(() => null)
      .catch((e: unknown) => e);
    expect(error).not.toBeNull();
    const conflict = uniqueViolation(error);
    expect(conflict?.code).toBe(409);
    expect(conflict?.data).toMatchObject({ issues: [{ field: 'orgName', key: 'existed' }] });
    expect(uniqueViolation(new Error('other'))).toBeNull();
  });
});
