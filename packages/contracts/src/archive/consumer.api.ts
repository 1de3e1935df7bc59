import { archiveApi, archiveResources, formsOf, optionsApi } from './archive-api';
import { importApi } from './archive-import';
import { ConsumerCreateSchema, consumerEntity } from './consumer.schema';

export const CONSUMER_RES = archiveResources(consumerEntity.pagePath);

export const consumerApi = {
  ...archiveApi({
    path: 'consumer',
    entity: consumerEntity,
    create: ConsumerCreateSchema,
    res: CONSUMER_RES,
  }),
  options: optionsApi('consumer', consumerEntity.name, {
    searches: 'consumer code or name',
    pickedBy: formsOf('/archiveSetting/poc'),
  }),
};

export const consumerImportApi = importApi({
  path: 'consumer',
  tag: 'consumer',
  res: `${consumerEntity.pagePath}/import`,
});
