import { METER_OPERATIONS, meterApi, meterEntity, type OperationName } from '@meterdesk/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Flex, Spin } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { callApi } from '@/api/api-client';
import { errorText } from '@/i18n/message-text';
import { MeterCommands, meterCommandsKey } from './meter-commands';
import { hasParams, needsConfirm, useGrantedOperations } from './operation-params';
import { ParamsDialog } from './params-dialog';
import { runDone, runFinished, usePlanRuns } from './plan-runs';
import { RefusalAlert, ResultsPanel, useConfirm } from './results-panel';

/**
 * The operations tab of a meter's detail: a button per operation the user holds, destructive ones
 * confirmed by the meter's serial, the answer arriving live, and the meter's command history below.
 */
export function MeterOperations({ id }: { id: string }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const confirm = useConfirm();
  const granted = useGrantedOperations(METER_OPERATIONS);
  const { runs, start, retry } = usePlanRuns();
  const [refusal, setRefusal] = useState<unknown>(null);
  const [sending, setSending] = useState<OperationName | null>(null);
  const [asking, setAsking] = useState<OperationName | null>(null);
  const meter = useQuery({
    queryKey: [meterEntity.name, 'detail', id],
    queryFn: ({ signal }) => callApi(meterApi.detail, { id }, { signal }),
  });

  // Each answer lands in the history too.
  const progress = runs.map((run) => `${run.planid}:${runDone(run)}`).join();
  useEffect(() => {
    if (progress) void queryClient.invalidateQueries({ queryKey: meterCommandsKey(id) });
  }, [progress, id, queryClient]);

  if (meter.isLoading) return <Spin />;
  if (!meter.data) return <Alert type="error" showIcon title={errorText(t, meter.error)} />;
  const device = String(meter.data.devAddr);

  const send = async (operation: OperationName, params: Record<string, unknown>) => {
    setRefusal(null);
    setSending(operation);
    try {
      await start({ operation, devices: [device], params }, 'meter');
    } catch (error) {
      setRefusal(error);
    } finally {
      setSending(null);
    }
  };
  const confirmed = (operation: OperationName, params: Record<string, unknown>) => {
    if (!needsConfirm(operation)) return void send(operation, params);
    confirm(
      t('operations.screen.confirmMeter', { operation: t(`operations.names.${operation}`), device }),
      () => send(operation, params),
      true,
    );
  };
  const running = (operation: OperationName) =>
    sending === operation || runs.some((run) => run.operation === operation && !runFinished(run));
  const retryFailed = async (run: Parameters<typeof retry>[0]) => {
    setRefusal(null);
    await retry(run).catch(setRefusal);
  };
  const [latest] = runs;

  return (
    <Flex vertical gap="middle" data-testid="meter-operations">
      <Card size="small" title={t('operations.screen.buttons')}>
        {granted.length === 0 ? (
          <Alert type="info" showIcon title={t('operations.screen.noButtons')} />
        ) : (
          <Flex gap="small" wrap>
            {granted.map((operation) => (
              <Button
                key={operation}
                danger={needsConfirm(operation)}
                loading={running(operation)}
                data-testid={`op-${operation}`}
                onClick={() => (hasParams(operation) ? setAsking(operation) : confirmed(operation, {}))}
              >
                {t(`operations.names.${operation}`)}
              </Button>
            ))}
          </Flex>
        )}
      </Card>
      {refusal !== null && <RefusalAlert error={refusal} onClose={() => setRefusal(null)} />}
      {latest && <ResultsPanel key={latest.planid} run={latest} onRetry={retryFailed} />}
      <MeterCommands id={id} />
      {asking && (
        <ParamsDialog
          operation={asking}
          onClose={() => setAsking(null)}
          onSubmit={(params) => confirmed(asking, params)}
        />
      )}
    </Flex>
  );
}
