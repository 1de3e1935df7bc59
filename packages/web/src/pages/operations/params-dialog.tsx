import type { OperationName } from '@meterdesk/contracts';
import { Form, Modal } from 'antd';
import { useTranslation } from 'react-i18next';
import { ParamsFields, paramDefaults, readParams } from './operation-params';

/** Asks an operation's parameters (a clock's time, a sync's mode, the items to read) before it is sent. */
export function ParamsDialog({
  operation,
  onSubmit,
  onClose,
}: {
  operation: OperationName;
  onSubmit: (params: Record<string, unknown>) => void;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const [form] = Form.useForm();
  const submit = async () => {
    const params = await readParams(operation, form, t);
    if (!params) return;
    onClose();
    onSubmit(params);
  };
  return (
    <Modal
      open
      title={t(`operations.names.${operation}`)}
      okText={t('operations.screen.execute')}
      cancelText={t('common.actions.cancel')}
      okButtonProps={{ 'data-testid': 'params-submit' }}
      onOk={submit}
      onCancel={onClose}
      destroyOnHidden
      data-testid="params-dialog"
    >
      <Form form={form} layout="vertical" initialValues={paramDefaults(operation)} onFinish={submit}>
        <ParamsFields operation={operation} form={form} />
      </Form>
    </Modal>
  );
}
