import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import {
  MAX_VIRTUAL_MEMBERS,
  METER_RES,
  VirtualMemberSchema,
  type VirtualMembersSave,
  virtualMeterApi,
} from '@meterdesk/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Card, Flex, Form, Tag, Typography } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { callApi } from '@/api/api-client';
import { usePermissions } from '@/app/permissions/permission-context';
import { isGranted } from '@/app/permissions/permission-index';
import { describeSchemaField } from '@/crud/crud-config';
import { showSaveError } from '@/crud/form-errors';
import { FieldInput } from '@/fields/field-input';

const FIELDS = (['meterId', 'channel', 'sign'] as const).map((key) =>
  describeSchemaField(key, VirtualMemberSchema.shape[key], 'virtualMeter.fields'),
);
const NEW_MEMBER = { channel: 'activeImport', sign: -1 };

/** The query key of a meter's members: the detail page reads them with the meter. */
export const membersKey = (id: string) => ['meter', 'members', id];

/**
 * A virtual meter's members under its detail: each a real meter's active import or export, added or
 * taken away; its readings on the data tab are their signed sum. Shown only for a virtual meter;
 * editable with the meter's edit resource. The server names a refused member (`members.2.meterId`).
 */
export function VirtualMembers({ id }: { id: string }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [form] = Form.useForm<Pick<VirtualMembersSave, 'members'>>();
  const queryClient = useQueryClient();
  const editable = isGranted(usePermissions(), METER_RES.edit);
  const members = useQuery({
    queryKey: membersKey(id),
    queryFn: ({ signal }) => callApi(virtualMeterApi.members, { id }, { signal }),
  });
  useEffect(() => {
    if (members.data) form.setFieldsValue({ members: members.data.members });
  }, [members.data, form]);
  const save = useMutation({
    mutationFn: (values: Pick<VirtualMembersSave, 'members'>) =>
      callApi(virtualMeterApi.saveMembers, { id, members: values.members ?? [] }),
    onSuccess: async () => {
      message.success(t('virtualMeter.saved'));
      await queryClient.invalidateQueries({ queryKey: ['meter'] });
    },
    onError: (error) => showSaveError(error, form, new Set(['members']), t, message.error),
  });
  if (!members.data?.virtual) return null;
  return (
    <Card
      title={
        <Flex gap="small" align="center">
          {t('virtualMeter.title')}
          <Tag color="purple">{t('virtualMeter.tag')}</Tag>
        </Flex>
      }
      data-testid="virtual-members"
    >
      <Typography.Paragraph type="secondary">{t('virtualMeter.help')}</Typography.Paragraph>
      <Form form={form} disabled={!editable} onFinish={(values) => save.mutate(values)}>
        <Form.List name="members">
          {(rows, { add, remove }) => (
            <Flex vertical>
              {rows.map((row) => (
                <Flex key={row.key} gap="small" align="start" data-testid={`member-${row.name}`}>
                  {FIELDS.map((field) => (
                    <Form.Item
                      key={field.key}
                      name={[row.name, field.key]}
                      rules={field.key === 'meterId' ? [{ required: true, message: t('errors.mandatory') }] : []}
                      style={{ flex: field.key === 'meterId' ? 3 : 2, marginBottom: 8 }}
                    >
                      <FieldInput field={{ ...field, key: `${field.key}-${row.name}` }} />
                    </Form.Item>
                  ))}
                  <Button
                    icon={<DeleteOutlined />}
                    aria-label={t('virtualMeter.remove')}
                    data-testid={`member-remove-${row.name}`}
                    onClick={() => remove(row.name)}
                  />
                </Flex>
              ))}
              {editable && (
                <Flex gap="small">
                  <Button
                    icon={<PlusOutlined />}
                    data-testid="member-add"
                    disabled={rows.length >= MAX_VIRTUAL_MEMBERS}
                    onClick={() => add(NEW_MEMBER)}
                  >
                    {t('virtualMeter.add')}
                  </Button>
                  <Button type="primary" htmlType="submit" loading={save.isPending} data-testid="member-save">
                    {t('common.actions.save')}
                  </Button>
                </Flex>
              )}
            </Flex>
          )}
        </Form.List>
      </Form>
    </Card>
  );
}
