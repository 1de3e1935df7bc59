import {
  codeText,
  DEFAULT_MAP_POSITION,
  emailText,
  PRIMARY_TABLE_NATURE,
  phoneText,
  serialText,
  TRANSFORMER_AREA,
} from '@meterdesk/contracts';
import { getTableName, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import type { Database } from '../db/driver';
import { rowsOf } from '../db/rows';
import { commModule, consumer, dcu, meter, meterType, poc, powerGrid, supplier } from '../db/schema';
import { FRESH_START } from '../test/constants';
import { firstStarts } from '../test/first-start';
import { archiveIsEmpty, seedDemoArchive } from './demo-archive';
import type { Position } from './seeded-random';

const TABLES: PgTable[] = [powerGrid, supplier, meterType, consumer, dcu, commModule, meter, poc];

function distanceKm(a: Position, b: Position): number {
  const rad = Math.PI / 180;
  const h =
    Math.sin(((b.lat - a.lat) * rad) / 2) ** 2 +
    Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(((b.lng - a.lng) * rad) / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.sqrt(h));
}

describe('demo archive', FRESH_START, () => {
  const { box, emptyDatabase, start } = firstStarts();
  const sizes = async (database: Database) => {
    const result: Record<string, number> = {};
    for (const table of TABLES) {
      const [row] = await rowsOf<{ n: number }>(database.db, sql`select count(*)::int as n from ${table}`);
      result[getTableName(table)] = row!.n;
    }
    return result;
  };
  /** The archive's rows but their times and sealed secrets (sealing draws a fresh nonce each time). */
  const snapshot = async (database: Database) => {
    const rows: Record<string, unknown[]> = {};
    for (const table of TABLES) {
      const all = await rowsOf<Record<string, unknown>>(database.db, sql`select * from ${table} order by id`);
      rows[getTableName(table)] = all.map(
        ({ create_time, update_time, hes_password, lls_key, hls_auth_key, hls_enc_key, hls_auth_enc_key, ...r }) => r,
      );
    }
    return rows;
  };
  const DEMO_SIZES = {
    power_grid: 17,
    supplier: 3,
    meter_type: 4,
    consumer: 200,
    dcu: 5,
    comm_module: 222,
    meter: 222,
    poc: 210,
  };

  it('comes with the first start on embedded defaults, once; an emptied archive stays empty unless DEMO=on', async () => {
    const database = await emptyDatabase();
    expect(await start(database, {})).toMatchObject({ demoArchive: true });
    expect(await sizes(database)).toEqual(DEMO_SIZES);
    const first = await snapshot(database);

    expect(await start(database, {})).not.toHaveProperty('demoArchive');
    expect(await sizes(database)).toEqual(DEMO_SIZES);

    // The operator clears the demo to begin for real: the next start leaves it so.
    await database.db.execute(
      sql`truncate power_grid, supplier, meter_type, consumer, dcu, comm_module, meter, poc cascade`,
    );
    expect(await start(database, {})).not.toHaveProperty('demoArchive');
    expect(await archiveIsEmpty(database.db)).toBe(true);

    expect(await start(database, { DEMO: 'on' })).toMatchObject({ demoArchive: true });
    // The same archive, down to the ids: every install starts from the same demo.
    expect(await snapshot(database)).toEqual(first);
    expect(await start(database, { DEMO: 'on' })).not.toHaveProperty('demoArchive');
    expect(await sizes(database)).toEqual(DEMO_SIZES);
  });

  it('stays out of PostgreSQL unless DEMO=on, out of DEMO=off, and out of an archive holding anything', async () => {
    const postgres = 'postgres://meterdesk@127.0.0.1:5432/meterdesk';
    expect(loadConfig({}).demoArchive).toBe('firstStart');
    expect(loadConfig({ DEMO: 'off' }).demoArchive).toBe('never');
    expect(loadConfig({ DATABASE_URL: postgres }).demoArchive).toBe('never');
    expect(loadConfig({ DATABASE_URL: postgres, DEMO: 'off' }).demoArchive).toBe('never');
    expect(loadConfig({ DATABASE_URL: postgres, DEMO: 'on' }).demoArchive).toBe('whenEmpty');
    expect(() => loadConfig({ DEMO: 'yes' })).toThrow(/DEMO/);

    const database = await emptyDatabase();
    expect(await start(database, { DATABASE_URL: postgres })).not.toHaveProperty('demoArchive');
    expect(await archiveIsEmpty(database.db)).toBe(true);

    // The operator's first record: DEMO=on adds nothing around it.
    await database.db.insert(supplier).values({ id: 'a'.repeat(32), supplierCode: 'OWN1', supplierName: 'Our own' });
    expect(await start(database, { DATABASE_URL: postgres, DEMO: 'on' })).not.toHaveProperty('demoArchive');
    expect(await sizes(database)).toMatchObject({ power_grid: 0, supplier: 1, meter: 0 });
  });

  describe('content', () => {
    let database: Database;
    beforeAll(async () => {
      database = await emptyDatabase();
      await database.db.transaction((tx) => seedDemoArchive(tx, box));
    });

    it('gives every meter a module, every meter out of the warehouse a POC with its consumer', async () => {
      const meters = await database.db.select().from(meter);
      const pocs = await database.db.select().from(poc);
      const consumers = await database.db.select().from(consumer);
      const modules = await database.db.select().from(commModule);
      const moduleNo = new Map(modules.map((m) => [m.id, m.moduleNo]));

      for (const m of meters) {
        expect(moduleNo.get(m.moduleId!), m.devAddr).toBeDefined();
        expect(moduleNo.get(m.moduleId!)).not.toBe(m.devAddr);
        const at = pocs.filter((p) => p.meterId === m.id);
        expect(at, m.devAddr).toHaveLength(m.status === 0 ? 0 : 1);
      }
      expect(meters.filter((m) => m.status === 0)).toHaveLength(12);

      const consumerPocs = pocs.filter((p) => p.nature === 1);
      expect(consumerPocs).toHaveLength(200);
      for (const p of consumerPocs) {
        expect(p.meterId, p.pocNo).not.toBeNull();
        expect(consumers.find((c) => c.id === p.consumerId)?.gridId, p.pocNo).toBe(p.gridId);
      }
      expect(new Set(consumerPocs.map((p) => p.consumerId)).size).toBe(consumers.length);
    });

    it('holds a believable fleet: a primary-table POC per area, mostly working meters, a few protected consumers', async () => {
      const grids = await database.db.select().from(powerGrid);
      const pocs = await database.db.select().from(poc);
      const meters = await database.db.select().from(meter);
      const areas = grids.filter((g) => g.gridType === TRANSFORMER_AREA);
      expect(areas).toHaveLength(10);
      for (const area of areas) {
        const primary = pocs.find((p) => p.id === area.primaryPocId);
        expect(primary, area.gridCode).toMatchObject({
          nature: PRIMARY_TABLE_NATURE,
          gridId: area.id,
          consumerId: null,
        });
        expect(meters.find((m) => m.id === primary!.meterId)?.gridId).toBe(area.id);
        expect(area.capacity).toBeGreaterThan(0);
      }

      const inService = meters.filter((m) => m.status !== 0);
      const byStatus = (s: number) => inService.filter((m) => m.status === s).length;
      expect(byStatus(2) / inService.length).toBeGreaterThan(0.75);
      for (const s of [1, 3, 5]) expect(byStatus(s), `status ${s}`).toBeGreaterThan(0);

      const protectedOnes = await database.db.select().from(consumer).where(sql`${consumer.protected}`);
      expect(protectedOnes).toHaveLength(5);
      for (const c of protectedOnes) {
        const p = pocs.find((x) => x.consumerId === c.id)!;
        expect(meters.find((m) => m.id === p.meterId)?.status).toBe(2);
      }

      const dcus = await database.db.select().from(dcu);
      for (const d of dcus) {
        for (const devAddr of d.blacklist) expect(meters.find((m) => m.devAddr === devAddr)?.dcuId).toBe(d.id);
        expect(meters.filter((m) => m.dcuId === d.id).every((m) => m.gridId === d.gridId)).toBe(true);
      }
    });

    it('passes the fields’ own validation: keys, serials, phones and e-mails', async () => {
      const meterSn = serialText(6, 'meterSnIncomplete');
      const consumerId = serialText(4, 'consumerIdIncomplete');
      for (const m of await database.db.select().from(meter)) meterSn.parse(m.devAddr);
      for (const c of await database.db.select().from(consumer)) {
        consumerId.parse(c.consumerCode);
        phoneText().parse(c.phone);
        emailText().parse(c.email);
      }
      for (const m of await database.db.select().from(commModule)) codeText().parse(m.moduleNo);
      for (const p of await database.db.select().from(poc)) codeText().parse(p.pocNo);
      for (const d of await database.db.select().from(dcu)) codeText().parse(d.dcuNo);
      for (const g of await database.db.select().from(powerGrid)) codeText().parse(g.gridCode);
    });

    it('places everything within 10 km of the map centre, each area’s consumers around its transformer', async () => {
      const meters = await database.db.select().from(meter);
      const pocs = await database.db.select().from(poc);
      const placed = [
        ...meters,
        ...(await database.db.select().from(consumer)),
        ...(await database.db.select().from(dcu)),
      ].filter((r) => r.latitude !== null);
      expect(placed.length).toBe(210 + 200 + 5);
      for (const r of placed) {
        expect(distanceKm(DEFAULT_MAP_POSITION, { lat: r.latitude!, lng: r.longitude! })).toBeLessThan(10);
      }
      const checkMeter = new Map(
        pocs
          .filter((p) => p.nature === PRIMARY_TABLE_NATURE)
          .map((p) => [p.gridId, meters.find((m) => m.id === p.meterId)!]),
      );
      for (const m of meters.filter((x) => x.latitude !== null)) {
        const transformer = checkMeter.get(m.gridId)!;
        const km = distanceKm(
          { lat: m.latitude!, lng: m.longitude! },
          { lat: transformer.latitude!, lng: transformer.longitude! },
        );
        expect(km, m.devAddr).toBeLessThan(0.5);
      }
    });

    it('keeps every HES password and DCU key sealed: nothing in clear anywhere in the archive', async () => {
      const meters = await database.db.select().from(meter);
      const dcus = await database.db.select().from(dcu);
      const sealed = [
        ...meters.map((m) => m.hesPassword),
        ...dcus.flatMap((d) => [d.llsKey, d.hlsAuthKey, d.hlsEncKey, d.hlsAuthEncKey]),
      ];
      expect(sealed).toHaveLength(222 + 5 * 4);
      const secrets = sealed.map((s) => {
        expect(s).toMatch(/^v1\./);
        return box.open(s!);
      });
      expect(new Set(secrets).size).toBe(secrets.length);
      for (const d of dcus) expect(box.open(d.hlsAuthKey!)).toMatch(/^[0-9a-f]{32}$/);

      const everything: string[] = [];
      for (const table of TABLES) {
        const rows = await rowsOf<{ t: string }>(database.db, sql`select row_to_json(r)::text as t from ${table} r`);
        everything.push(...rows.map((r) => r.t));
      }
      const dump = everything.join('\n');
      for (const secret of secrets) expect(dump.includes(secret), secret).toBe(false);
    });
  });
});
