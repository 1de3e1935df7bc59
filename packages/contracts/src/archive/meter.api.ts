import { z } from 'zod';
import { field } from '../common/entity';
import { IdSchema } from '../common/ids';
import { defineOperation, needs } from '../common/operation';
import { nameText } from '../common/validation';
import { billingRuleEntity } from '../payment/billing-rule.schema';
import { archiveApi, archiveResources, formsOf, optionsApi } from './archive-api';
import { importApi } from './archive-import';
import { MeterCreateSchema, meterEntity, meterStatusField } from './meter.schema';

export const METER_RES = {
  ...archiveResources(meterEntity.pagePath),
  maintain: `${meterEntity.pagePath}/maintain`,
};

export const MeterMaintainSchema = z.strictObject({
  id: IdSchema,
  toStatus: field(meterStatusField(), { label: 'meter.fields.toStatus', widget: 'select' }),
  reason: field(nameText(500), { label: 'meter.fields.reason', widget: 'textarea' }),
});
export type MeterMaintain = z.infer<typeof MeterMaintainSchema>;

/** One status change of a meter: from, to, who, when and why. */
export const MeterStatusChangeSchema = z.object({
  id: IdSchema,
  fromStatus: meterStatusField(),
  toStatus: meterStatusField(),
  reason: z.string(),
  username: z.string(),
  time: z.string().describe('ISO 8601'),
});
export type MeterStatusChange = z.infer<typeof MeterStatusChangeSchema>;

const archive = archiveApi({
  path: 'meter',
  entity: meterEntity,
  create: MeterCreateSchema,
  res: METER_RES,
});

export const meterApi = {
  ...archive,
  // Batch operation, tariff configuration and a firmware campaign pick their meters from the meter list.
  list: {
    ...archive.list,
    access: needs(
      METER_RES.page,
      '/serviceRequest/batchOperation',
      '/serviceRequest/tariffConfiguration',
      '/parameterSetting/meterUpgrade/start',
    ),
  },
  // The maintain page shows the meter it moves.
  detail: { ...archive.detail, access: needs(METER_RES.detail, METER_RES.edit, METER_RES.maintain) },
  maintain: defineOperation({
    path: '/meter/maintain',
    access: needs(METER_RES.maintain),
    tag: 'meter',
    summary:
      'meter: move a meter along its life cycle (METER_STATUS_TRANSITIONS) with a reason; the change is kept in its history',
    request: MeterMaintainSchema,
    response: z.null(),
    audit: 'update',
  }),
  history: defineOperation({
    path: '/meter/history',
    access: needs(METER_RES.detail, METER_RES.edit, METER_RES.maintain),
    tag: 'meter',
    summary: "meter: its status changes, newest first; 404 outside the caller's scope",
    request: z.strictObject({ id: IdSchema }),
    response: z.array(MeterStatusChangeSchema),
  }),
  options: optionsApi('meter', meterEntity.name, {
    searches: 'serial number',
    // The POC form names the meter at the POC; replace names the new one.
    // Billing rules name their main, tenant and solar meters; a virtual meter its members (under its detail).
    pickedBy: [
      ...formsOf('/archiveSetting/poc'),
      '/archiveSetting/poc/replace',
      ...formsOf(billingRuleEntity.pagePath),
      METER_RES.detail,
      METER_RES.edit,
    ],
    filters: {
      free: z.boolean().default(false).describe('Only meters measuring no POC (a meter measures one)'),
    },
  }),
};

export const meterImportApi = importApi({ path: 'meter', tag: 'meter', res: `${meterEntity.pagePath}/import` });
