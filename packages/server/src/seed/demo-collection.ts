import { nextDailyStart, type Template, templateOrders } from '@meterdesk/contracts';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../db/driver';
import { stableId } from '../db/ids';
import { meter, obisItem, plan, planTemplate } from '../db/schema';
import { ITEM_KINDS } from '../modules/collection/run-items';
import { DEMO_ROOT_GRID_ID } from './demo-archive';
import { seededDailyTask } from './seeded-task';

/*
 * The demo archive's collection: a template and the daily task that reads the whole demo grid, added
 * with the archive itself (seed/seed.ts), so the task pages show a task with runs from the first day.
 */

export const DEMO_TEMPLATE_ID = stableId('demo:template:daily');
export const DEMO_TASK_ID = stableId('demo:task:daily');
const NAME = 'Demo daily collection';
/** Repairs two, four and six hours after each run re-read what a device did not answer. */
const REPAIR = { repairFreq: 2, repairUnit: 'hour', repairCount: 3 } as const;

/**
 * The template holds every profile object of the OBIS catalogue flagged for periodic reading that a run
 * reads (load profile, daily and monthly frozen values, the event log), and the task, owned by admin,
 * reads them daily from the demo grid's root. Stable ids and names: a conflict (the demo added again
 * after its archive was emptied, an operator's own template of that name) leaves what is stored.
 */
export async function seedDemoCollection(tx: Executor, now = new Date()): Promise<void> {
  const profileObjects = Object.keys(ITEM_KINDS);
  const catalogue = await tx
    .select({ cgName: obisItem.cgName, obis: obisItem.obis })
    .from(obisItem)
    .where(and(eq(obisItem.readPeriodically, true), inArray(obisItem.obis, profileObjects)));
  const items = profileObjects.flatMap((obis) => catalogue.filter((c) => c.obis === obis).map((c) => c.cgName));
  if (!items.length) return;
  const template: Pick<Template, 'items' | 'cycleValue' | 'cycleFreq'> = { items, cycleValue: 0, cycleFreq: 'minute' };
  const orders = templateOrders(template);
  await tx
    .insert(planTemplate)
    .values({
      id: DEMO_TEMPLATE_ID,
      templateName: NAME,
      orders,
      remark: 'Added with the demo archive',
      createdBy: 'admin',
    })
    .onConflictDoNothing();
  const [stored] = await tx
    .select({ id: planTemplate.id })
    .from(planTemplate)
    .where(eq(planTemplate.id, DEMO_TEMPLATE_ID));
  if (!stored) return;

  const devs = { itemType: 0, devList: [], devParams: { grid_ids: [DEMO_ROOT_GRID_ID] } };
  // The demo goes only into an empty archive: its root holds every meter there is.
  const [counted] = await tx.select({ n: sql<number>`count(*)::int` }).from(meter);
  const start = nextDailyStart(now);
  const task = seededDailyTask(start);
  await tx
    .insert(plan)
    .values({
      ...task,
      id: DEMO_TASK_ID,
      planName: NAME,
      planTempName: NAME,
      templateId: DEMO_TEMPLATE_ID,
      devs,
      crontab: { ...task.crontab, repairConf: REPAIR },
      orders,
      deviceCount: Number(counted?.n ?? 0),
      enabled: true,
      nextRunAt: start,
    })
    .onConflictDoNothing();
}
