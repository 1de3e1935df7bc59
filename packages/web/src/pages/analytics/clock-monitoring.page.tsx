import { ClockCircleOutlined } from '@ant-design/icons';
import {
  type ClockRow,
  clockMonitoringAnalytics,
  clockMonitoringApi,
  MAX_BATCH_DEVICES,
  OPERATIONS,
} from '@meterdesk/contracts';
import { Button } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { usePermissions } from '@/app/permissions/permission-context';
import type { Row } from '@/crud/crud-config';
import type { SelectedRowsAction } from '@/crud/crud-list-page';
import { usePlanRuns } from '@/pages/operations/plan-runs';
import { RefusalAlert, ResultsPanel, useConfirm } from '@/pages/operations/results-panel';
import { AnalyticsPage, type AnalyticsScreen } from './analytics-page';

const screen: AnalyticsScreen = {
  definition: clockMonitoringAnalytics,
  api: clockMonitoringApi,
  // Rows are picked by serial, as the batch operation picks them (select-<serial>).
  rowKey: 'devAddr',
};

/**
 * Clock monitoring: the meters whose latest clock check is off by the threshold, and a clock sync of the
 * selected ones (at most 30, spec §5) through the batch operation's plan, asked first and followed as
 * the batch operation page follows it. Offline meters are refused by the server, naming them.
 */
export function ClockMonitoringPage() {
  const { t } = useTranslation();
  const permissions = usePermissions();
  const confirm = useConfirm();
  const { runs, start, retry } = usePlanRuns();
  const [refusal, setRefusal] = useState<unknown>(null);
  const [sending, setSending] = useState(false);
  const [latest] = runs;

  const sync = (rows: ClockRow[], clear: () => void) =>
    confirm(t('analyticsClock.confirmSync', { count: rows.length }), async () => {
      setRefusal(null);
      setSending(true);
      try {
        await start(
          { operation: 'clockSync', devices: rows.map((row) => row.devAddr), params: { source: 'system' } },
          'meter',
        );
        clear();
      } catch (error) {
        setRefusal(error);
      } finally {
        setSending(false);
      }
    });
  const selectedAction: SelectedRowsAction | undefined = permissions.buttons.has(OPERATIONS.clockSync.resource)
    ? {
        max: MAX_BATCH_DEVICES,
        limitText: 'operations.screen.selectionLimit',
        render: (rows: Row[], clear) => (
          <Button
            type="primary"
            icon={<ClockCircleOutlined />}
            disabled={rows.length === 0}
            loading={sending}
            data-testid="clock-sync"
            onClick={() => sync(rows as unknown as ClockRow[], clear)}
          >
            {t('analyticsClock.syncSelected')} ({rows.length})
          </Button>
        ),
      }
    : undefined;

  return (
    <AnalyticsPage
      screen={screen}
      selectedAction={selectedAction}
      // The list holds the meters beyond the threshold alone: an empty one says so, not 'No records'.
      emptyText={(figures) =>
        typeof figures?.threshold === 'number' ? t('analyticsClock.empty', { threshold: figures.threshold }) : undefined
      }
    >
      {refusal !== null && <RefusalAlert error={refusal} onClose={() => setRefusal(null)} />}
      {latest && (
        <ResultsPanel
          key={latest.planid}
          run={latest}
          onRetry={(run) => {
            setRefusal(null);
            return retry(run).catch(setRefusal);
          }}
        />
      )}
    </AnalyticsPage>
  );
}
