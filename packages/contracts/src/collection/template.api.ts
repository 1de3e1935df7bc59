import { archiveApi } from '../archive/archive-api';
import { needs } from '../common/operation';
import { PLAN_RES } from '../operations/plan.api';
import { TemplateCreateSchema, templateEntity } from './template.schema';

const page = templateEntity.pagePath;

/** The resources of spec §2 templateMGT (add, detail), with edit, delete and export buttons. */
export const TEMPLATE_RES = {
  page,
  add: `${page}/add`,
  edit: `${page}/edit`,
  detail: `${page}/detail`,
  delete: `${page}/delete`,
  export: `${page}/export`,
} as const;

const archive = archiveApi({
  path: 'plantemplate',
  entity: templateEntity,
  create: TemplateCreateSchema,
  res: TEMPLATE_RES,
});

export const templateApi = {
  ...archive,
  // The task form starts from a template: whoever adds or edits a task picks from the list and reads one.
  list: { ...archive.list, access: needs(page, PLAN_RES.taskAdd, PLAN_RES.taskEdit) },
  detail: {
    ...archive.detail,
    access: needs(TEMPLATE_RES.detail, TEMPLATE_RES.edit, PLAN_RES.taskAdd, PLAN_RES.taskEdit),
  },
};
