import { SendOutlined } from '@ant-design/icons';
import { OPERATIONS, PARAM_TEMPLATE_RES, PLAN_RES, paramTemplateApi, paramTemplateEntity } from '@meterdesk/contracts';
import { defineArchiveCrud } from '@/crud/archive-crud';
import { createCrudPages } from '@/crud/crud-pages';
import { ParamItemsInput } from './param-items-input';

/** Where applying a template goes: the batch operation, its meters filtered to the template's type. */
export const applyTemplatePath = (row: { id: string; meterTypeId: string }) =>
  `${PLAN_RES.batch}?${new URLSearchParams({ operation: 'applyParamTemplate', templateId: row.id, meterTypeId: row.meterTypeId })}`;

/**
 * paramTemplateSetting: named sets of OBIS item values for a meter type. spec §2 gives the page a save
 * button and a detail page, so the list adds and edits in a dialog; Apply opens the batch operation
 * with the template chosen and the meters of its type listed.
 */
export const paramTemplateCrud = defineArchiveCrud({
  entity: paramTemplateEntity,
  api: paramTemplateApi,
  formDialog: PARAM_TEMPLATE_RES.add,
  // A new template starts with one empty row to fill.
  initialValues: { items: [{} as never] },
  rowsInputs: { items: ParamItemsInput },
  rowActions: [
    {
      key: 'apply',
      icon: <SendOutlined />,
      permission: OPERATIONS.applyParamTemplate.resource,
      to: applyTemplatePath,
      onDetail: true,
    },
  ],
});

export const paramTemplatePages = createCrudPages(paramTemplateCrud);
