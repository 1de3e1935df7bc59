import { IdSchema } from '../common/ids';
import { OptionSchema } from '../common/options';
import { SCHEDULED_TASK_FORMS } from '../operations/plan.api';
import { paramTemplateEntity } from '../parameter/param-template.schema';
import { archiveApi, archiveResources, formsOf, optionsApi } from './archive-api';
import { MeterTypeCreateSchema, meterTypeEntity } from './meter-type.schema';

export const METER_TYPE_RES = archiveResources(meterTypeEntity.pagePath, { import: false });

export const meterTypeApi = {
  ...archiveApi({
    path: 'metertype',
    entity: meterTypeEntity,
    create: MeterTypeCreateSchema,
    res: METER_TYPE_RES,
  }),
  options: optionsApi('metertype', meterTypeEntity.name, {
    searches: 'model name',
    // The meter list (and batch operation, over the same list) filters by meter type.
    pickedBy: [
      '/archiveSetting/meter',
      '/serviceRequest/batchOperation',
      ...formsOf('/archiveSetting/meter'),
      ...SCHEDULED_TASK_FORMS,
      // A parameter template is for a meter type: its list filters by one, its form picks one.
      paramTemplateEntity.pagePath,
      `${paramTemplateEntity.pagePath}/save`,
    ],
    // A meter's supplier follows its type's.
    option: OptionSchema.extend({ supplierId: IdSchema }),
  }),
};
