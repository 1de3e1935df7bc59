import {
  COLLECT_ITEM_LABELS,
  MAX_PAGE_SIZE,
  newTaskFormValues,
  PLAN_RES,
  planApi,
  TASK_FORM_SECTIONS,
  type Task,
  type TaskForm,
  TaskFormSchema,
  type Template,
  taskApi,
  taskFormField,
  taskFormIssues,
  taskFormValues,
  taskPlanBody,
  templateApi,
} from '@meterdesk/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Card, Flex, Form, Spin, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { ApiError, callApi } from '@/api/api-client';
import { describeSchemaField, type UniqueCheck } from '@/crud/crud-config';
import { apiIssuesToFieldErrors, showFieldErrors } from '@/crud/form-errors';
import { FormFields } from '@/crud/form-fields';
import { useListLocation } from '@/crud/use-list-location';
import { EditedRecordContext } from '@/fields/field-input';
import { valueLabel } from '@/fields/field-value';
import { errorText, messageText } from '@/i18n/message-text';

const SHAPE = TaskFormSchema.shape as unknown as Record<string, import('zod').ZodType>;
const FIELDS = Object.entries(SHAPE).map(([key, schema]) => describeSchemaField(key, schema, 'task.fields'));
const FIELD_KEYS = new Set(Object.keys(SHAPE));

const NAME_CHECK: UniqueCheck = {
  operation: taskApi.check,
  dependsOn: [],
  request: (value, _values, id) => ({ field: 'planName', value, ...(id ? { id } : {}) }),
};

/** A task's form: add (no `id`), or edit a task that is disabled. */
function TaskFormBody({ task }: { task?: Task }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [form] = Form.useForm<TaskForm>();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const listLocation = useListLocation(PLAN_RES.taskAdd.replace(/\/add$/, ''));
  const templates = useQuery({
    queryKey: ['template', 'all'],
    queryFn: ({ signal }) => callApi(templateApi.list, { curPage: 1, pageSize: MAX_PAGE_SIZE }, { signal }),
  });
  const templateId = Form.useWatch('templateId', form);
  const template = templates.data?.list.find((r) => r.id === templateId) as Template | undefined;
  const initialValues = useMemo(() => (task ? taskFormValues(task) : newTaskFormValues(new Date())), [task]);

  const save = useMutation({
    mutationFn: (values: TaskForm) => {
      if (!template) throw new ApiError(400, 'templateNotFound');
      const body = taskPlanBody(values, template);
      return task ? callApi(planApi.updateplan, { ...body, planid: task.id }) : callApi(planApi.createplan, body);
    },
    onSuccess: async () => {
      message.success(t('task.done.saved'));
      await queryClient.invalidateQueries({ queryKey: ['task'] });
      navigate(listLocation);
    },
    onError: (error) => {
      if (!(error instanceof ApiError) || error.issues.length === 0) {
        message.error(errorText(t, error));
        return;
      }
      const issues = error.issues.map((issue) => ({ ...issue, field: taskFormField(issue.field) }));
      const { fieldErrors, unplaced } = apiIssuesToFieldErrors(issues, FIELD_KEYS, t);
      showFieldErrors(form, fieldErrors);
      if (unplaced.length) message.error(unplaced.join('; '));
    },
  });

  const submit = async () => {
    let values: TaskForm;
    try {
      values = await form.validateFields();
    } catch {
      return;
    }
    const all = { ...initialValues, ...form.getFieldsValue(true) } as TaskForm;
    const issues = taskFormIssues(all, new Date(), { startChanged: all.starttime !== task?.starttime });
    if (issues.length) {
      showFieldErrors(
        form,
        issues.map((issue) => ({ name: [issue.field], errors: [messageText(t, issue.key)] })),
      );
      return;
    }
    save.mutate({ ...all, ...values });
  };

  return (
    <Form
      form={form}
      layout="horizontal"
      labelWrap
      labelCol={{ span: 6 }}
      wrapperCol={{ span: 14 }}
      initialValues={initialValues}
      onValuesChange={(changed: Partial<TaskForm>) => {
        // A new task takes its template's default device filters; the operator narrows them after.
        if (!task && changed.templateId) {
          const picked = templates.data?.list.find((r) => r.id === changed.templateId);
          if (picked) form.setFieldValue('devParams', picked.devParams);
        }
      }}
      onFinish={submit}
      style={{ maxWidth: 820 }}
      data-testid="task-form"
    >
      <EditedRecordContext value={task?.id}>
        <FormFields
          fields={FIELDS}
          shape={SHAPE}
          form={form}
          uniqueChecks={{ planName: NAME_CHECK }}
          id={task?.id}
          sections={TASK_FORM_SECTIONS}
        />
      </EditedRecordContext>
      {template && (
        <Form.Item wrapperCol={{ offset: 6, span: 14 }}>
          <Typography.Text type="secondary" data-testid="task-template-items">
            {t('task.fields.items')}:{' '}
            {template.items.map((item) => valueLabel(t, COLLECT_ITEM_LABELS, item)).join(', ')}
          </Typography.Text>
        </Form.Item>
      )}
      <Form.Item wrapperCol={{ offset: 6, span: 14 }}>
        <Flex gap="small">
          <Button type="primary" htmlType="submit" loading={save.isPending} data-testid="crud-save">
            {t('common.actions.save')}
          </Button>
          <Button data-testid="crud-cancel" onClick={() => navigate(listLocation)}>
            {t('common.actions.cancel')}
          </Button>
        </Flex>
      </Form.Item>
    </Form>
  );
}

/**
 * Spec §4: an enabled task is disabled before it is modified; the page offers that first, asking for
 * confirmation (and warning when a run is executing).
 */
function DisableFirst({ task, onDisabled }: { task: Task; onDisabled: () => void }) {
  const { t } = useTranslation();
  const { modal, message } = App.useApp();
  const disable = useMutation({
    mutationFn: () => callApi(taskApi.disable, { planid: task.id }),
    onSuccess: () => {
      message.success(t('task.done.disable'));
      onDisabled();
    },
    onError: (error) => message.error(errorText(t, error)),
  });
  return (
    <Alert
      type="warning"
      showIcon
      data-testid="task-disable-first"
      title={messageText(t, 'taskEnabled')}
      action={
        <Button
          danger
          data-testid="task-disable"
          loading={disable.isPending}
          onClick={() =>
            modal.confirm({
              title: t(task.planStatus === 'executing' ? 'task.confirm.disableRunning' : 'task.confirm.disableToEdit'),
              onOk: () => disable.mutateAsync(),
            })
          }
        >
          {t('task.actions.disable')}
        </Button>
      }
    />
  );
}

/** taskMGT/add and taskMGT/edit (`?id=`). */
export function TaskFormPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const id = params.get('id') ?? undefined;
  const [reloads, setReloads] = useState(0);
  const detail = useQuery({
    queryKey: ['task', 'detail', id, reloads],
    queryFn: ({ signal }) => callApi(taskApi.detail, { id: id ?? '' }, { signal }),
    enabled: id !== undefined,
  });
  const task = detail.data;
  return (
    <Card title={t(id === undefined ? 'task.actions.add' : 'crud.editTitle')}>
      {id !== undefined && detail.isLoading && <Spin />}
      {detail.error && <Alert type="error" showIcon title={errorText(t, detail.error)} />}
      {id === undefined && <TaskFormBody />}
      {task?.enabled && <DisableFirst task={task} onDisabled={() => setReloads((n) => n + 1)} />}
      {task && !task.enabled && <TaskFormBody key={`${task.id}-${reloads}`} task={task} />}
    </Card>
  );
}
