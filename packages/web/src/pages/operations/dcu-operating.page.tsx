import { DCU_OPERATIONS, MAX_BATCH_DEVICES, type OperationName } from '@meterdesk/contracts';
import { Alert, App, Button, Card, Flex, Form, Tabs } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { FieldInput } from '@/fields/field-input';
import { DCU_FIELD, useDcuNumbers } from './dcu-picker';
import {
  hasParams,
  needsConfirm,
  ParamsFields,
  paramDefaults,
  readParams,
  useGrantedOperations,
} from './operation-params';
import { type PlanRun, usePlanRuns } from './plan-runs';
import { RefusalAlert, ResultsPanel, useConfirm } from './results-panel';

/** The DCU operations by what they read or set, one tab each (every DCU operation sits in one). */
const SECTIONS = {
  parameters: ['dcuReadParameters', 'dcuSetParameters'],
  taskParameters: ['dcuReadTaskParameters', 'dcuSetTaskParameters'],
  blacklist: ['dcuReadBlacklist', 'dcuSetBlacklist'],
  clock: ['dcuReadClock', 'dcuSetClock'],
  frame: ['dcuFrame'],
  reboot: ['dcuReboot'],
} as const satisfies Record<string, readonly OperationName[]>;

type Send = (operation: OperationName, params: Record<string, unknown>) => void;

/** One operation: a button when it takes nothing, else its parameters' form and a button. */
function OperationControl({ operation, send }: { operation: OperationName; send: Send }) {
  const { t } = useTranslation();
  const [form] = Form.useForm();
  const button = (onClick: () => void) => (
    <Button
      type={hasParams(operation) ? 'primary' : 'default'}
      danger={needsConfirm(operation)}
      data-testid={`op-${operation}`}
      onClick={onClick}
    >
      {t(`operations.names.${operation}`)}
    </Button>
  );
  if (!hasParams(operation)) return button(() => send(operation, {}));
  const submit = async () => {
    const params = await readParams(operation, form, t);
    if (params) send(operation, params);
  };
  return (
    <Form
      form={form}
      layout="vertical"
      initialValues={paramDefaults(operation)}
      style={{ maxWidth: 560 }}
      data-testid={`form-${operation}`}
    >
      <ParamsFields operation={operation} form={form} />
      {button(() => void submit())}
    </Form>
  );
}

/**
 * DCU operating: pick DCUs, then read or set their parameters, task parameters, blacklist and clock,
 * send a raw frame or reboot them (after a confirmation); each DCU's answer arrives live below.
 */
export function DcuOperatingPage() {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const confirm = useConfirm();
  const { runs, start, retry } = usePlanRuns();
  const [picker] = Form.useForm();
  const dcuIds = (Form.useWatch('dcuIds', picker) ?? []) as string[];
  const [refusal, setRefusal] = useState<unknown>(null);
  const granted = useGrantedOperations(DCU_OPERATIONS);
  const numbers = useDcuNumbers(dcuIds);

  const send: Send = (operation, params) => {
    if (numbers.length === 0) return void message.warning(t('operations.screen.chooseDcus'));
    if (numbers.length > MAX_BATCH_DEVICES)
      message.warning(t('operations.screen.selectionLimitDcus', { max: MAX_BATCH_DEVICES }));
    const devices = numbers.slice(0, MAX_BATCH_DEVICES);
    const run = async () => {
      setRefusal(null);
      try {
        await start({ operation, devices, params }, 'dcu');
      } catch (error) {
        setRefusal(error);
      }
    };
    if (!needsConfirm(operation)) return void run();
    confirm(
      t('operations.screen.confirmDcus', { operation: t(`operations.names.${operation}`), count: devices.length }),
      run,
      true,
    );
  };
  const retryFailed = async (run: PlanRun) => {
    setRefusal(null);
    await retry(run).catch(setRefusal);
  };
  const [latest] = runs;

  return (
    <Flex vertical gap="middle" data-testid="dcu-operating">
      <Card size="small">
        <Form form={picker} layout="vertical" style={{ maxWidth: 720 }}>
          <Form.Item
            name="dcuIds"
            label={t(DCU_FIELD.label)}
            extra={t('operations.screen.selectedDcus', { count: dcuIds.length, max: MAX_BATCH_DEVICES })}
          >
            <FieldInput field={DCU_FIELD} />
          </Form.Item>
        </Form>
      </Card>
      {granted.length > 0 ? (
        <Tabs
          items={Object.entries(SECTIONS).map(([section, operations]) => ({
            key: section,
            label: <span data-testid={`dcu-tab-${section}`}>{t(`operations.screen.dcuSections.${section}`)}</span>,
            children: (
              <Flex vertical gap="middle" align="flex-start">
                {operations
                  .filter((operation) => granted.includes(operation))
                  .map((operation) => (
                    <OperationControl key={operation} operation={operation} send={send} />
                  ))}
              </Flex>
            ),
          }))}
        />
      ) : (
        <Alert type="info" showIcon title={t('operations.screen.noButtons')} />
      )}
      {refusal !== null && <RefusalAlert error={refusal} onClose={() => setRefusal(null)} />}
      {latest && <ResultsPanel key={latest.planid} run={latest} onRetry={retryFailed} />}
    </Flex>
  );
}
