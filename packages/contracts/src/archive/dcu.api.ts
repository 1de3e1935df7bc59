import { z } from 'zod';
import { IdSchema } from '../common/ids';
import { defineOperation, needs } from '../common/operation';
import { OptionSchema } from '../common/options';
import { archiveApi, archiveResources, formsOf, optionsApi } from './archive-api';
import { importApi } from './archive-import';
import { DcuCreateSchema, DcuKeysSchema, dcuEntity } from './dcu.schema';

export const DCU_RES = {
  ...archiveResources(dcuEntity.pagePath),
  /** The button that shows a DCU's keys in clear. */
  reveal: `${dcuEntity.pagePath}/reveal`,
};

export const dcuApi = {
  ...archiveApi({
    path: 'dcu',
    entity: dcuEntity,
    create: DcuCreateSchema,
    res: DCU_RES,
  }),
  options: optionsApi('dcu', dcuEntity.name, {
    searches: 'DCU number or name',
    // The meter list and batch operation filter by DCU; DCU operating picks the DCUs it commands.
    pickedBy: [
      '/archiveSetting/meter',
      '/serviceRequest/batchOperation',
      '/parameterSetting/dcuOperating',
      // A concentrator's firmware campaign.
      '/parameterSetting/meterUpgrade/start',
      ...formsOf('/archiveSetting/meter'),
      ...formsOf('/archiveSetting/poc'),
    ],
    // DCU operating sends its commands to the DCUs by number.
    option: OptionSchema.extend({ dcuNo: z.string() }),
  }),
  reveal: defineOperation({
    path: '/dcu/reveal',
    access: needs(DCU_RES.reveal),
    tag: 'dcu',
    summary: 'dcu: its LLS and HLS keys in clear (empty where none is stored); each call is logged, the keys never',
    request: z.strictObject({ id: IdSchema }),
    response: DcuKeysSchema,
    audit: 'other',
  }),
};

export const dcuImportApi = importApi({ path: 'dcu', tag: 'dcu', res: `${dcuEntity.pagePath}/import` });
