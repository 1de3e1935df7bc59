import type { ParamTemplateItem } from '@meterdesk/contracts';
import { sql } from 'drizzle-orm';
import { index, jsonb, pgTable, uniqueIndex, varchar } from 'drizzle-orm/pg-core';
import { meterType } from './archive';
import { createdAt, id, ref, updatedAt } from './columns';

// Its own file: it names a meter type, and the archive's tables name a tariff of parameter.ts.
/** A parameter template (paramTemplateSetting): OBIS item values for the meters of a meter type. */
export const paramTemplate = pgTable(
  'param_template',
  {
    id: id(),
    templateName: varchar({ length: 100 }).notNull(),
    meterTypeId: ref()
      .notNull()
      .references(() => meterType.id),
    /** `{obis, value}[]`, raw values as the meter holds them, in the order they are set. */
    items: jsonb().$type<ParamTemplateItem[]>().notNull(),
    remark: varchar({ length: 500 }).notNull().default(''),
    createdBy: varchar({ length: 50 }).notNull(),
    createTime: createdAt(),
    updateTime: updatedAt(),
  },
  (t) => [
    uniqueIndex('param_template_name_uq').on(sql`lower(${t.templateName})`),
    index('param_template_meter_type_idx').on(t.meterTypeId),
  ],
);
