import { archiveApi } from '../archive/archive-api';
import { needs } from '../common/operation';
import { OPERATIONS } from '../operations/operations';
import { ParamTemplateCreateSchema, paramTemplateEntity } from './param-template.schema';

const page = paramTemplateEntity.pagePath;

/**
 * spec §2 gives the parameter template page a hidden detail page and one button, `save`, for adding
 * and editing (in a dialog on the list); delete and export are buttons of their own, as on every list.
 */
export const PARAM_TEMPLATE_RES = {
  page,
  add: `${page}/save`,
  edit: `${page}/save`,
  detail: `${page}/detail`,
  delete: `${page}/delete`,
  export: `${page}/export`,
} as const;

const archive = archiveApi({
  path: 'paramtemplate',
  entity: paramTemplateEntity,
  create: ParamTemplateCreateSchema,
  res: PARAM_TEMPLATE_RES,
});

export const paramTemplateApi = {
  ...archive,
  // Applying a template picks it from the list: whoever may apply one reads the list.
  list: { ...archive.list, access: needs(page, OPERATIONS.applyParamTemplate.resource) },
};
