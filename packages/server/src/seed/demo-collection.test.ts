import { nextDailyStart, paramItemIssue } from '@meterdesk/contracts';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import type { Database } from '../db/driver';
import { obisItem, paramTemplate, plan, planTemplate, supplier } from '../db/schema';
import { type Crontab, checkCollectItems, checkSchedule } from '../modules/collection/task-rules';
import { FRESH_START } from '../test/constants';
import { firstStarts } from '../test/first-start';
import { DEMO_ROOT_GRID_ID } from './demo-archive';
import { DEMO_TASK_ID, DEMO_TEMPLATE_ID } from './demo-collection';

describe('demo collection task and parameter templates', FRESH_START, () => {
  const { emptyDatabase, start } = firstStarts();
  const tasks = (database: Database) => database.db.select().from(plan);
  const templates = (database: Database) => database.db.select().from(planTemplate);

  it('comes with the demo archive: a daily task over the whole demo grid from the coming day, owned by admin, with repairs', async () => {
    const database = await emptyDatabase();
    const before = new Date();
    expect(await start(database, {})).toMatchObject({ demoArchive: true });

    const [template] = await templates(database);
    expect(template).toMatchObject({ id: DEMO_TEMPLATE_ID, createdBy: 'admin' });
    const items = ((template?.orders ?? []) as { cgcode: string }[]).map((o) => o.cgcode);
    expect(items).toEqual(['loadProfile', 'dailyFrozen', 'monthlyFrozen', 'eventLog']);

    const [task, ...others] = await tasks(database);
    expect(others).toHaveLength(0);
    expect(task).toMatchObject({
      id: DEMO_TASK_ID,
      kind: 'collection',
      templateId: DEMO_TEMPLATE_ID,
      planStatus: 'waiting',
      enabled: true,
      executedCount: 0,
      createdBy: 'admin',
      deviceCount: 222,
      devs: { itemType: 0, devList: [], devParams: { grid_ids: [DEMO_ROOT_GRID_ID] } },
    });
    expect(task?.orders).toEqual(template?.orders);
    const crontab = task?.crontab as Crontab;
    expect(crontab).toMatchObject({ freq: 1, unit: 'day', repairConf: { repairCount: 3 } });
    // Its first run is the coming day's 00:05 UTC, and the task keeps every rule a user's task keeps.
    const next = task?.nextRunAt as Date;
    expect(next).toEqual(nextDailyStart(before));
    expect(next.toISOString()).toMatch(/T00:05:00.000Z$/);
    expect(next.getTime() - before.getTime()).toBeGreaterThan(0);
    expect(next.getTime() - before.getTime()).toBeLessThanOrEqual(86_400_000 + 5 * 60_000);
    expect(crontab.starttime * 1000).toBe(next.getTime());
    checkSchedule(crontab, { now: before, changedStart: true, executed: 0 });
    await checkCollectItems(database.db, items, 'items');
    // Its parameter templates hold items a template may set, each value of the kind its object takes.
    const catalogue = await database.db.select().from(obisItem);
    const paramTemplates = await database.db.select().from(paramTemplate);
    expect(paramTemplates.map((t) => t.templateName).sort()).toEqual([
      'Household PLC standard',
      'Three-phase PLC demand limit',
    ]);
    for (const { items } of paramTemplates)
      for (const item of items)
        expect(
          paramItemIssue(
            catalogue.find((c) => c.obis === item.obis),
            item.value,
          ),
        ).toBeNull();

    // A second start adds nothing.
    expect(await start(database, {})).not.toHaveProperty('demoArchive');
    expect(await tasks(database)).toHaveLength(1);
    expect(await templates(database)).toHaveLength(1);

    // The demo added again into an emptied archive: the task and template it had are kept, not doubled.
    await database.db.execute(
      sql`truncate power_grid, supplier, meter_type, consumer, dcu, comm_module, meter, poc cascade`,
    );
    expect(await start(database, { DEMO: 'on' })).toMatchObject({ demoArchive: true });
    expect(await tasks(database)).toHaveLength(1);
    expect(await templates(database)).toHaveLength(1);
  });

  it('reads 30 days of history unless DEMO_HISTORY_DAYS says otherwise (0 none, at most 30)', () => {
    expect(loadConfig({}).demoHistoryDays).toBe(30);
    expect(loadConfig({ DEMO_HISTORY_DAYS: '0' }).demoHistoryDays).toBe(0);
    expect(() => loadConfig({ DEMO_HISTORY_DAYS: '31' })).toThrow(/DEMO_HISTORY_DAYS/);
  });

  it('never comes without the demo archive: DEMO=off, PostgreSQL, or an archive holding anything', async () => {
    const off = await emptyDatabase();
    await start(off, { DEMO: 'off' });
    expect(await tasks(off)).toHaveLength(0);
    expect(await templates(off)).toHaveLength(0);

    const postgres = 'postgres://meterdesk@127.0.0.1:5432/meterdesk';
    const own = await emptyDatabase();
    await start(own, { DATABASE_URL: postgres });
    await own.db.insert(supplier).values({ id: 'a'.repeat(32), supplierCode: 'OWN1', supplierName: 'Our own' });
    expect(await start(own, { DATABASE_URL: postgres, DEMO: 'on' })).not.toHaveProperty('demoArchive');
    expect(await tasks(own)).toHaveLength(0);
    expect(await templates(own)).toHaveLength(0);
  });
});
