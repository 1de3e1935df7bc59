import { z } from 'zod';
import { IdSchema } from '../common/ids';
import { defineOperation, needs } from '../common/operation';
import { archiveApi, archiveResources } from './archive-api';
import { importApi } from './archive-import';
import {
  PocCreateSchema,
  PocOptionSchema,
  PocOptionsQuerySchema,
  PocReplacementSchema,
  PocReplaceSchema,
  pocEntity,
} from './poc.schema';

export const POC_RES = {
  ...archiveResources(pocEntity.pagePath),
  /** The hidden page that replaces a POC's meter. */
  replace: `${pocEntity.pagePath}/replace`,
};

/** Most options a picker search answers; the user narrows the keyword for others. */
export const MAX_POC_OPTIONS = 20;

export const pocApi = {
  ...archiveApi({
    path: 'poc',
    entity: pocEntity,
    create: PocCreateSchema,
    res: POC_RES,
    unique: ['pocNo'],
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
  options: defineOperation({
    path: '/poc/options',
    access: needs(POC_RES.add, POC_RES.edit, POC_RES.replace),
    tag: 'poc',
    summary: `poc: meters (only those at no POC), consumers or DCUs within the caller's scope whose number contains the keyword (at most ${MAX_POC_OPTIONS}), and the records named by ids`,
    request: PocOptionsQuerySchema,
    response: z.array(PocOptionSchema),
  }),
};

export const pocImportApi = importApi({ path: 'poc', tag: 'poc', res: `${pocEntity.pagePath}/import` });
