import {
  CYCLE_UNITS,
  type PlanOrderSchema,
  type Template,
  templateApi,
  templateEntity,
  templateOrders,
} from '@meterdesk/contracts';
import { ne } from 'drizzle-orm';
import type { z } from 'zod';
import type { Executor } from '../../db/driver';
import { defineList, keyOrder } from '../../db/list';
import { iso } from '../../db/rows';
import { plan, planTemplate } from '../../db/schema';
import { defineArchive } from '../archive/archive-kit';
import { inUseBy } from '../archive/references';
import { checkCollectItems, checkGridIds } from './task-rules';

type Row = typeof planTemplate.$inferSelect;
type Order = z.output<typeof PlanOrderSchema>;

export const TEMPLATE_LIST = defineList({
  entity: templateEntity,
  columns: {
    templateName: planTemplate.templateName,
    createdBy: planTemplate.createdBy,
    updateTime: planTemplate.updateTime,
  },
  defaultOrder: keyOrder({ templateName: planTemplate.templateName, id: planTemplate.id }),
  tieBreak: planTemplate.id,
});

/** A template's record: its items and cycle plan read back from the orders it stores. */
export function toTemplate(r: Row): Template {
  const orders = r.orders as Order[];
  const cycle = orders.find((o) => o.cycleConf)?.cycleConf;
  return {
    id: r.id,
    templateName: r.templateName,
    items: orders.map((o) => o.cgcode),
    cycleValue: cycle?.cycleValue ?? 0,
    cycleFreq: cycle && CYCLE_UNITS.includes(cycle.cycleFreq) ? cycle.cycleFreq : 'minute',
    devParams: r.devParams as Template['devParams'],
    remark: r.remark,
    createdBy: r.createdBy,
    createTime: iso(r.createTime),
    updateTime: iso(r.updateTime),
  };
}

/**
 * Collection task templates: parameters every user shares (no grid scope), like the OBIS catalogue.
 * A template a live task was made from cannot be deleted; a deleted task lets it go.
 */
export const templateArchive = defineArchive({
  entity: templateEntity,
  api: templateApi,
  table: planTemplate,
  list: TEMPLATE_LIST,
  select: (db: Executor) => db.select().from(planTemplate),
  toRecord: toTemplate,
  toValues: async (v, { tx, session, scope, before }) => {
    await checkCollectItems(tx, v.items, 'items');
    await checkGridIds(tx, scope, v.devParams.grid_ids, 'devParams.grid_ids');
    return {
      templateName: v.templateName,
      orders: templateOrders(v),
      devParams: v.devParams,
      remark: v.remark,
      createdBy: before?.createdBy ?? session.username,
    };
  },
  inUse: (tx, ids) =>
    inUseBy(tx, ids, [{ column: plan.templateId, key: 'templateInUse', where: ne(plan.planStatus, 'deleted') }]),
});
