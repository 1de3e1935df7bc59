import { DownloadOutlined, RedoOutlined } from '@ant-design/icons';
import { planApi } from '@meterdesk/contracts';
import { useMutation } from '@tanstack/react-query';
import { Alert, App, Button, Card, Empty, Flex, Progress, Table, Tag } from 'antd';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { ApiError } from '@/api/api-client';
import { downloadFile } from '@/api/download';
import { CONFIRM_CANCEL, CONFIRM_OK } from '@/crud/row-actions';
import { errorText } from '@/i18n/message-text';
import { commandColumns } from './command-columns';
import { failedDevices, type PlanRun, type ResultRow, runDone, runFinished, runRows } from './plan-runs';

const RefusedSchema = z.object({ devices: z.array(z.string()) });

/** The devices a refusal names (offline, already executing, protected…), if it names any. */
export function refusedDevices(error: unknown): string[] {
  if (!(error instanceof ApiError)) return [];
  const parsed = RefusedSchema.safeParse(error.data);
  return parsed.success ? parsed.data.devices : [];
}

/** Why the server refused an operation, in the user's language, with the devices it names. */
export function RefusalAlert({ error, onClose }: { error: unknown; onClose: () => void }) {
  const { t } = useTranslation();
  const devices = refusedDevices(error);
  return (
    <Alert
      type="error"
      showIcon
      closable={{ onClose }}
      title={errorText(t, error)}
      description={devices.length ? t('operations.screen.refusedDevices', { devices: devices.join(', ') }) : undefined}
      data-testid="operation-refusal"
    />
  );
}

/** Asks before an operation is sent; the dialog's buttons carry the kit's confirmation test ids. */
export function useConfirm() {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  return (title: string, onOk: () => Promise<unknown>, danger = false) =>
    modal.confirm({
      title,
      okText: t('operations.screen.execute'),
      cancelText: t('common.actions.cancel'),
      okButtonProps: { danger, 'data-testid': CONFIRM_OK },
      cancelButtonProps: { 'data-testid': CONFIRM_CANCEL },
      onOk: () => onOk().catch(() => undefined),
    });
}

const RESULT_FIELDS = ['deviceKey', 'state', 'resultCode', 'items', 'attempts', 'answerTime'] as const;

/**
 * The devices of one run and their results as they arrive: a bar over done/total, one row per device,
 * the failed ones sent again after a confirmation, the list exported as a spreadsheet. Keyed by the
 * run, each new one comes into view. A screen that re-sends in its own way (tariff configuration)
 * gives no `onRetry`, and one whose users may not export plans no export.
 */
export function ResultsPanel({
  run,
  onRetry,
  exportable = true,
}: {
  run: PlanRun;
  onRetry?: (run: PlanRun) => Promise<unknown>;
  exportable?: boolean;
}) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const confirm = useConfirm();
  const done = runDone(run);
  const finished = runFinished(run);
  const failed = finished ? failedDevices(run) : [];
  const operation = t(`operations.names.${run.operation}`);
  const panel = useRef<HTMLDivElement>(null);
  // It appears below the devices and the operation's form, out of sight on most screens. Chromium's
  // scrollIntoView answers a promise, which React would take for the effect's clean-up: nothing is returned.
  useEffect(() => {
    void panel.current?.scrollIntoView({ behavior: 'smooth', block: 'nearest' });
  }, []);
  const exportFile = useMutation({
    mutationFn: () => downloadFile(planApi.export, { planid: run.planid }),
    onError: (error) => message.error(errorText(t, error)),
  });

  return (
    <Card
      ref={panel}
      size="small"
      title={`${t('operations.screen.results')} · ${operation}`}
      data-testid="operation-results"
      extra={
        run.status !== 'pendingApproval' && (
          <Flex gap="small">
            {onRetry && failed.length > 0 && (
              <Button
                icon={<RedoOutlined />}
                data-testid="results-retry"
                onClick={() => confirm(t('operations.screen.confirmRetry', { operation }), () => onRetry(run))}
              >
                {t('operations.screen.retryFailed')}
              </Button>
            )}
            {exportable && (
              <Button
                icon={<DownloadOutlined />}
                loading={exportFile.isPending}
                data-testid="results-export"
                onClick={() => exportFile.mutate()}
              >
                {t('operations.screen.exportResults')}
              </Button>
            )}
          </Flex>
        )
      }
    >
      {run.status === 'pendingApproval' ? (
        <Alert
          type="info"
          showIcon
          title={
            run.devices.length === 1
              ? t('operations.screen.pendingApprovalMeter', { device: run.devices[0] })
              : t('operations.screen.pendingApproval', { count: run.devices.length })
          }
          data-testid="results-pending-approval"
        />
      ) : (
        <Flex vertical gap="small">
          <Flex align="center" gap="middle">
            <Progress
              percent={run.total ? Math.round((done / run.total) * 100) : 0}
              status={finished ? (failed.length ? 'exception' : 'success') : 'active'}
              style={{ flex: 1 }}
            />
            <span data-testid="results-progress" data-done={done} data-total={run.total}>
              {t('operations.screen.progress', { done, total: run.total })}
            </span>
            {run.live && <Tag color="processing">{t('operations.screen.live')}</Tag>}
          </Flex>
          <Table<ResultRow>
            size="small"
            rowKey="deviceKey"
            columns={commandColumns(t, RESULT_FIELDS)}
            dataSource={runRows(run)}
            pagination={false}
            onRow={(row) => ({ 'data-testid': `result-${row.deviceKey}` }) as object}
            locale={{
              emptyText: (
                <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('operations.screen.resultsEmpty')} />
              ),
            }}
          />
        </Flex>
      )}
    </Card>
  );
}
