import {
  type DeviceCommandItem,
  type ObisItem,
  type ParamTemplate,
  type ParamTemplateCreate,
  type ParamTemplateItem,
  paramItemIssue,
  paramTemplateApi,
  paramTemplateEntity,
  RESULT,
  scaled,
  unitSymbol,
} from '@meterdesk/contracts';
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/driver';
import { anyRow, type EveryField, iso, lookup } from '../../db/rows';
import { meterType, paramTemplate } from '../../db/schema';
import { fieldError } from '../../errors/api-error';
import type { ParamTemplateLookup } from '../../headend/commands';
import { defineArchive, type ShownRow } from '../archive/archive-kit';
import { obisItemsByCode } from './obis-catalogue';

const shown = {
  meterTypeName: lookup<string>(meterType.modelName, meterType.id, paramTemplate.meterTypeId),
  itemCount: sql<number>`jsonb_array_length(${paramTemplate.items})`.mapWith(Number),
};
type Row = ShownRow<typeof paramTemplate, typeof shown>;

/** A list value as the detail shows it: the codes one after the other; a number scaled, with its unit. */
function shownValue(entry: ObisItem, value: unknown): string {
  return Array.isArray(value) ? value.join(', ') : scaled(entry, value).text;
}

/**
 * Parameter templates (paramTemplateSetting): parameters every user shares, no grid scope, like the
 * OBIS catalogue they draw on. Each item must be a catalogue item a template may set, its value of
 * the kind its object takes (`paramItemIssue`); the detail shows each with the catalogue's unit and
 * scaler and the value scaled.
 */
export const paramTemplateArchive = defineArchive({
  entity: paramTemplateEntity,
  api: paramTemplateApi,
  table: paramTemplate,
  shown,
  toRecord: (r: Row): ParamTemplate => ({
    id: r.id,
    templateName: r.templateName,
    meterTypeId: r.meterTypeId,
    meterTypeName: r.meterTypeName,
    items: r.items,
    itemCount: r.itemCount,
    remark: r.remark,
    createdBy: r.createdBy,
    createTime: iso(r.createTime),
    updateTime: iso(r.updateTime),
  }),
  toValues: async (v, { tx, session, before }) => {
    if (!(await anyRow(tx, meterType, eq(meterType.id, v.meterTypeId))))
      throw fieldError(RESULT.badRequest, 'meterTypeId', 'meterTypeNotFound');
    const catalogue = await obisItemsByCode(
      tx,
      v.items.map((item) => item.obis),
    );
    v.items.forEach((item, i) => {
      const issue = paramItemIssue(catalogue.get(item.obis), item.value);
      if (issue) throw fieldError(RESULT.badRequest, `items.${i}.${issue.member}`, issue.key);
    });
    const items: ParamTemplateItem[] = v.items.map(({ obis, value }) => ({ obis, value }));
    const values = { ...v, items } satisfies EveryField<ParamTemplateCreate, typeof paramTemplate.$inferInsert>;
    return { ...values, createdBy: before?.createdBy ?? session.username };
  },
  related: async (db, record) => {
    const catalogue = await obisItemsByCode(
      db,
      record.items.map((item) => item.obis),
    );
    return {
      items: record.items.map((item) => {
        const entry = catalogue.get(item.obis);
        return entry
          ? {
              ...item,
              description: entry.description,
              scaler: entry.scaler,
              unit: unitSymbol(entry.unit),
              shown: shownValue(entry, item.value),
            }
          : item;
      }),
    };
  },
});

/** What the head-end reads of a template to apply it: its items as set items, from the catalogue as it is now. */
export class ParamTemplates implements ParamTemplateLookup {
  constructor(private readonly db: Db) {}

  async paramTemplate(id: string) {
    const [row] = await this.db
      .select({ meterTypeId: paramTemplate.meterTypeId, items: paramTemplate.items })
      .from(paramTemplate)
      .where(eq(paramTemplate.id, id));
    if (!row) return undefined;
    const catalogue = await obisItemsByCode(
      this.db,
      row.items.map((item) => item.obis),
    );
    const items: DeviceCommandItem[] = [];
    for (const { obis, value } of row.items) {
      const entry = catalogue.get(obis);
      if (!entry || paramItemIssue(entry, value)) return { meterTypeId: row.meterTypeId, items: undefined };
      items.push({ obis, classId: entry.classId, attribute: entry.attribute, value });
    }
    return { meterTypeId: row.meterTypeId, items };
  }
}
