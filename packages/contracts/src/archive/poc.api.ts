import { z } from 'zod';
import { IdSchema } from '../common/ids';
import { defineOperation, needs } from '../common/operation';
import { archiveApi, archiveResources, formsOf, optionsApi } from './archive-api';
import { importApi } from './archive-import';
import { POC_NATURES } from './enums';
import { PocCreateSchema, PocReplacementSchema, PocReplaceSchema, pocEntity } from './poc.schema';

export const POC_RES = {
  ...archiveResources(pocEntity.pagePath),
  /** The hidden page that replaces a POC's meter. */
  replace: `${pocEntity.pagePath}/replace`,
};

export const pocApi = {
  ...archiveApi({
    path: 'poc',
    entity: pocEntity,
    create: PocCreateSchema,
    res: POC_RES,
  }),
  replace: defineOperation({
    path: '/poc/replace',
    access: needs(POC_RES.replace),
    tag: 'poc',
    summary:
      'poc: swap its meter for a new one (not at any POC) and keep the replacement record, in one transaction; answers its sequence number (PRE<seq>)',
    request: PocReplaceSchema,
    response: z.object({ seq: z.number().int() }),
    audit: 'update',
  }),
  history: defineOperation({
    path: '/poc/history',
    access: needs(POC_RES.detail, POC_RES.edit, POC_RES.replace),
    tag: 'poc',
    summary: "poc: the meters replaced there, PRE1 (the first) onwards; 404 outside the caller's scope",
    request: z.strictObject({ id: IdSchema }),
    response: z.array(PocReplacementSchema),
  }),
  options: optionsApi('poc', pocEntity.name, {
    searches: 'POC number',
    // A transformer area names its primary-table POC.
    pickedBy: formsOf('/archiveSetting/powerGrid'),
    filters: {
      nature: z
        .union(
          POC_NATURES.map((value) => z.literal(value)),
          'invalidValue',
        )
        .optional()
        .describe('Only POCs of this nature'),
      gridId: IdSchema.optional().describe('Only POCs placed at this very grid node'),
    },
  }),
};

export const pocImportApi = importApi({ path: 'poc', tag: 'poc', res: `${pocEntity.pagePath}/import` });
