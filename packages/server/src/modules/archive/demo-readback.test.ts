import {
  consumerApi,
  dcuApi,
  gridApi,
  meterApi,
  meterTypeApi,
  moduleApi,
  type Page,
  pocApi,
  supplierApi,
} from '@meterdesk/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../../crypto/secret-box';
import { powerGrid } from '../../db/schema';
import { archiveIsEmpty, seedDemoArchive } from '../../seed/demo-archive';
import { createTestApp, type TestApp } from '../../test/harness';

/**
 * Every record the demo archive holds must come back through the calls that show it: a stored value
 * the record's contract refuses (an offset of 0 once did) fails a whole list with 500.
 */
describe('the demo archive through every archive call', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.loginAdmin();
    // The test template holds the demo grid alone; the demo archive brings it again.
    await t.db.delete(powerGrid);
    expect(await archiveIsEmpty(t.db)).toBe(true);
    await seedDemoArchive(t.db, new SecretBox(t.secretKey));
  });
  afterAll(() => t.close());

  const apis = { supplierApi, meterTypeApi, consumerApi, moduleApi, meterApi, dcuApi, pocApi, gridApi };

  it.each(Object.entries(apis))('%s lists, details and exports every demo record', async (_name, api) => {
    const page = await t.call<Page<{ id: string }>>(api.list.path, { pageSize: 500 }, admin);
    expect(page.status, JSON.stringify(page.body).slice(0, 300)).toBe(200);
    expect(page.body.data.list.length).toBeGreaterThan(0);
    for (const { id } of page.body.data.list.slice(0, 20)) {
      const detail = await t.call(api.detail.path, { id }, admin);
      expect(detail.status, JSON.stringify(detail.body).slice(0, 300)).toBe(200);
    }
    if (api.export) {
      const res = await t.app.http.inject({
        method: 'POST',
        url: `/apis${api.export.path}`,
        payload: {},
        headers: { cookie: admin },
      });
      expect(res.statusCode).toBe(200);
    }
  });
});
