import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_MAP_POSITION, type GridNode } from '@meterdesk/contracts';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCK_FILE } from './db/data-dir-lock';
import { rowsOf } from './db/rows';
import { type ScaleProgress, seedScaleArchive } from './seed/scale-archive';
import { parseSeedArgs, runSeed } from './seed-cli';
import { FRESH_START } from './test/constants';
import { createTestApp, type TestApp } from './test/harness';
import { otherProcesses } from './test/processes';

describe('scale seed (npm run seed)', FRESH_START, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  /** Per table: rows under the run's region, and distinct business keys among them. */
  const tally = async (run: string) => {
    const under = sql`grid_id in (with recursive s(id) as (select id from power_grid where grid_code = ${run}
      union all select g.id from power_grid g join s on g.parent_id = s.id) select id from s)`;
    const [row] = await rowsOf<Record<string, number>>(
      t.db,
      sql`select
        (select count(*)::int from meter where ${under}) as meters,
        (select count(distinct lower(dev_addr))::int from meter where ${under} and dev_addr like ${`${run}%`}) as serials,
        (select count(*)::int from consumer where ${under}) as consumers,
        (select count(distinct lower(consumer_code))::int from consumer where ${under} and consumer_code like ${`${run}C%`}) as consumer_codes,
        (select count(*)::int from comm_module where ${under} and module_no like ${`${run}M%`}) as modules,
        (select count(*)::int from poc where ${under} and poc_no like ${`${run}P%`}) as pocs,
        (select count(*)::int from dcu where ${under}) as dcus,
        (select count(*)::int from meter m where ${under}
          and m.module_id is not null and m.dcu_id is not null
          and exists (select 1 from poc p join consumer c on c.id = p.consumer_id where p.meter_id = m.id)) as complete,
        (select count(*)::int from meter where ${under}
          and abs(latitude - ${DEFAULT_MAP_POSITION.lat}) < 0.3 and abs(longitude - ${DEFAULT_MAP_POSITION.lng}) < 0.3) as nearby`,
    );
    return row!;
  };

  it('adds N meters with consumer, module, POC and DCU, in batches, and a second run beside the first', async () => {
    const progress: ScaleProgress[] = [];
    const first = await seedScaleArchive(t.database, {
      meters: 2000,
      batchSize: 700,
      onProgress: (p) => progress.push(p),
    });
    expect(progress.map((p) => p.meters)).toEqual([700, 1400, 2000]);
    expect(first).toMatchObject({ meters: 2000, rows: 1 + 1 + 1 + 4 + 1 + 2 + 2 + 4 + 4 * 2000 });
    expect(await tally(first.run)).toEqual({
      meters: 2000,
      serials: 2000,
      consumers: 2000,
      consumer_codes: 2000,
      modules: 2000,
      pocs: 2000,
      dcus: 4,
      complete: 2000,
      nearby: 2000,
    });

    const second = await seedScaleArchive(t.database, { meters: 600, metersPerArea: 100 });
    expect(second.run).not.toBe(first.run);
    expect(await tally(second.run)).toMatchObject({ meters: 600, serials: 600, dcus: 6, complete: 600 });
    expect((await tally(first.run)).meters).toBe(2000);

    const admin = await t.loginAdmin();
    const tree = (await t.call<GridNode[]>('/powergrid/tree', {}, admin)).body.data;
    const region = tree.find((g) => g.gridName === `Scale region ${first.run}`)!;
    expect(region.children).toHaveLength(1);
    expect(region.children[0]!.children[0]!.children).toHaveLength(4);
  });

  it('writes all of a run or nothing', async () => {
    const sizes = () =>
      rowsOf(
        t.db,
        sql`select (select count(*)::int from power_grid) as grids, (select count(*)::int from supplier) as suppliers,
          (select count(*)::int from meter_type) as types, (select count(*)::int from dcu) as dcus,
          (select count(*)::int from consumer) as consumers, (select count(*)::int from comm_module) as modules,
          (select count(*)::int from meter) as meters, (select count(*)::int from poc) as pocs`,
      );
    const before = await sizes();
    const interrupted = seedScaleArchive(t.database, {
      meters: 1500,
      batchSize: 500,
      onProgress: (p) => {
        if (p.meters === 1000) throw new Error('interrupted');
      },
    });
    await expect(interrupted).rejects.toThrow('interrupted');
    expect(await sizes()).toEqual(before);
  });
});

describe('scale seed command line', () => {
  const pids = otherProcesses();
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'meterdesk-seed-cli-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const run = async (...args: string[]) => {
    const lines: string[] = [];
    const code = await runSeed({ dataDir, databaseUrl: undefined }, args, (line) => lines.push(line));
    return { code, text: lines.join('\n') };
  };

  it('reads its flags and shows the usage for anything else', async () => {
    expect(parseSeedArgs(['--meters', '1000000'])).toEqual({
      meters: 1_000_000,
      batchSize: 10_000,
      databaseUrl: undefined,
    });
    expect(parseSeedArgs(['--database-url', 'postgres://h/db', '--meters', '5', '--batch', '2'])).toEqual({
      meters: 5,
      batchSize: 2,
      databaseUrl: 'postgres://h/db',
    });
    expect(parseSeedArgs(['--meters', '100000', '--days', '90', '--profile-every', '0'])).toMatchObject({
      meters: 100_000,
      history: { days: 90, profileDays: 2, profileEvery: 0 },
    });
    for (const args of [
      [],
      ['--meters', '5', '--profile-days', '3'],
      ['--meters', '5', '--days', '0'],
      ['--meters', '5', '--days', '99999'],
      ['--meters'],
      ['--meters', '0'],
      ['--meters', '1e6'],
      ['--meters', '-5'],
      ['--rows', '5'],
    ]) {
      expect(parseSeedArgs(args), args.join(' ')).toBeNull();
    }
    const usage = await run('--meters', 'many');
    expect(usage.code).toBe(2);
    expect(usage.text).toMatch(/^Usage/);
  });

  it('refuses a PGlite DATA_DIR the server has open, before touching it', async () => {
    writeFileSync(path.join(dataDir, LOCK_FILE), `${pids.living()}\nserver\n`);
    expect(await run('--meters', '10')).toEqual({
      code: 1,
      text: `The server is running on DATA_DIR ${dataDir} (pid ${pids.living()}); stop it first, or run the command against PostgreSQL (a server on DATABASE_URL may stay up).`,
    });
    expect(readdirSync(dataDir)).toEqual([LOCK_FILE]);
  });
});
