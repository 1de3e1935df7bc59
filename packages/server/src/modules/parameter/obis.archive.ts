import { type ObisCreate, type ObisRecord, obisApi, obisEntity } from '@meterdesk/contracts';
import type { Executor } from '../../db/driver';
import { defineList, keyOrder } from '../../db/list';
import { type EveryField, iso } from '../../db/rows';
import { obisItem } from '../../db/schema';
import { defineArchive } from '../archive/archive-kit';

type Row = typeof obisItem.$inferSelect;

export const OBIS_LIST = defineList({
  entity: obisEntity,
  columns: {
    obis: obisItem.obis,
    cgName: obisItem.cgName,
    classId: obisItem.classId,
    readInstantly: obisItem.readInstantly,
    readPeriodically: obisItem.readPeriodically,
    settingChannel: obisItem.settingChannel,
    updateTime: obisItem.updateTime,
  },
  defaultOrder: keyOrder({ obis: obisItem.obis, id: obisItem.id }),
  tieBreak: obisItem.id,
});

export const toObisRecord = (r: Row): ObisRecord => ({
  id: r.id,
  obis: r.obis,
  classId: r.classId,
  attribute: r.attribute,
  description: r.description,
  unit: r.unit as ObisRecord['unit'],
  scaler: r.scaler,
  cgName: r.cgName,
  channelOption: r.channelOption,
  thresholdOption: r.thresholdOption,
  settingChannel: r.settingChannel,
  displayOption: r.displayOption,
  readInstantly: r.readInstantly,
  readPeriodically: r.readPeriodically,
  rateDataType: r.rateDataType,
  commonConfig: r.commonConfig,
  createTime: iso(r.createTime),
  updateTime: iso(r.updateTime),
});

/** The OBIS catalogue: parameters every user shares, no grid scope. */
export const obisArchive = defineArchive({
  entity: obisEntity,
  api: obisApi,
  table: obisItem,
  list: OBIS_LIST,
  select: (db: Executor) => db.select().from(obisItem),
  toRecord: toObisRecord,
  toValues: async (v) => ({ ...v }) satisfies EveryField<ObisCreate, typeof obisItem.$inferInsert>,
});
