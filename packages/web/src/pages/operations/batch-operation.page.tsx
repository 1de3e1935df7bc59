import { METER_OPERATIONS, type OperationName, PLAN_RES } from '@meterdesk/contracts';
import { Alert, App, Button, Card, Flex, Form, Select } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { usePermissions } from '@/app/permissions/permission-context';
import { MeterPicker, type PickedMeter } from './meter-picker';
import { needsConfirm, ParamsFields, paramDefaults, readParams, useGrantedOperations } from './operation-params';
import { PendingApprovals } from './pending-approvals';
import { type PlanRun, usePlanRuns } from './plan-runs';
import { RefusalAlert, ResultsPanel, useConfirm } from './results-panel';

/**
 * Batch operation: the meter list's own filters and columns (the meter entity's declaration), up to 30
 * meters chosen across pages, one operation with its parameters, a confirmation naming the count, and
 * each meter's answer arriving live. Held disconnects wait below for a second user's approval.
 */
export function BatchOperationPage() {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const permissions = usePermissions();
  const confirm = useConfirm();
  const granted = useGrantedOperations(METER_OPERATIONS);
  const { runs, start, retry } = usePlanRuns();
  const [form] = Form.useForm();
  const [picked, setPicked] = useState<PickedMeter[]>([]);
  const [operation, setOperation] = useState<OperationName | undefined>(undefined);
  const [refusal, setRefusal] = useState<unknown>(null);
  const [sending, setSending] = useState(false);

  const execute = async () => {
    if (!operation) return void message.warning(t('operations.screen.chooseOperation'));
    if (picked.length === 0) return void message.warning(t('operations.screen.chooseMeters'));
    const params = await readParams(operation, form, t);
    if (!params) return;
    const devices = picked.map((meter) => meter.devAddr);
    confirm(
      t('operations.screen.confirmMeters', { operation: t(`operations.names.${operation}`), count: devices.length }),
      async () => {
        setRefusal(null);
        setSending(true);
        try {
          await start({ operation, devices, params }, 'meter');
        } catch (error) {
          setRefusal(error);
        } finally {
          setSending(false);
        }
      },
      needsConfirm(operation),
    );
  };
  const retryFailed = async (run: PlanRun) => {
    setRefusal(null);
    await retry(run).catch(setRefusal);
  };
  const [latest] = runs;

  return (
    <Flex vertical gap="middle" data-testid="batch-operation">
      <MeterPicker picked={picked} onChange={setPicked} testIdPrefix="batch" />
      <Card size="small" title={t('operations.fields.operation')}>
        {granted.length === 0 ? (
          <Alert type="info" showIcon title={t('operations.screen.noButtons')} />
        ) : (
          <Form form={form} layout="vertical" style={{ maxWidth: 560 }}>
            <Form.Item label={t('operations.fields.operation')} required>
              <Select<OperationName>
                value={operation}
                data-testid="batch-operation-select"
                placeholder={t('operations.screen.chooseOperation')}
                options={granted.map((name) => ({ value: name, label: t(`operations.names.${name}`) }))}
                onChange={(next) => {
                  form.resetFields();
                  form.setFieldsValue(paramDefaults(next));
                  setOperation(next);
                }}
              />
            </Form.Item>
            {operation && <ParamsFields key={operation} operation={operation} form={form} />}
            <Button
              type="primary"
              danger={operation ? needsConfirm(operation) : false}
              loading={sending}
              data-testid="batch-execute"
              onClick={() => void execute()}
            >
              {t('operations.screen.execute')}
            </Button>
          </Form>
        )}
      </Card>
      {refusal !== null && <RefusalAlert error={refusal} onClose={() => setRefusal(null)} />}
      {latest && <ResultsPanel key={latest.planid} run={latest} onRetry={retryFailed} />}
      {permissions.buttons.has(PLAN_RES.approve) && <PendingApprovals />}
    </Flex>
  );
}
