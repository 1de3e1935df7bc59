import { archiveApi, archiveResources } from './archive-api';
import { MeterTypeCreateSchema, meterTypeEntity } from './meter-type.schema';

export const METER_TYPE_RES = archiveResources(meterTypeEntity.pagePath, { import: false });

export const meterTypeApi = archiveApi({
  path: 'metertype',
  entity: meterTypeEntity,
  create: MeterTypeCreateSchema,
  res: METER_TYPE_RES,
  unique: ['modelName'],
  pickedBy: ['/archiveSetting/meter'],
});
