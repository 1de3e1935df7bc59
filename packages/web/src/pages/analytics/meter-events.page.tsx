import {
  METER_EVENTS_RES,
  type MeterEventRecord,
  type MeterTimelineRecord,
  meterEventsAnalytics,
  meterEventsApi,
  meterEventsDetailAnalytics,
  meterEventsDetailApi,
} from '@meterdesk/contracts';
import { useMemo } from 'react';
import { useSearchParams } from 'react-router';
import type { RowAction } from '@/crud/crud-config';
import { AcknowledgeDialog } from './acknowledge-dialog';
import { AnalyticsDetailHeader, MeterDetailMissing } from './analytics-detail';
import {
  AnalyticsPage,
  type AnalyticsScreen,
  analyticsCrud,
  periodParams,
  useAnalyticsFilters,
} from './analytics-page';
import { EventStorms } from './event-storms';

/** Acknowledges one event with a remark; offered while nobody has. */
const acknowledgeAction: RowAction<MeterTimelineRecord> = {
  key: 'acknowledge',
  label: 'meterEvents.storms.acknowledge',
  permission: METER_EVENTS_RES.acknowledge,
  visible: (row) => !row.acknowledged,
  Dialog: ({ row, onClose }) => <AcknowledgeDialog target={{ events: [row] }} onClose={onClose} />,
};

/** Meter events: the events by level, code, grid node and time, their storms, a meter's timeline as the detail. */
export function MeterEventsPage() {
  const [params] = useSearchParams();
  const period = periodParams(meterEventsAnalytics, params);
  const periodKey = `${period.startDay}/${period.endDay}`;
  const screen = useMemo<AnalyticsScreen>(() => {
    const [startDay = '', endDay = ''] = periodKey.split('/');
    const timeline: RowAction<MeterEventRecord> = {
      key: 'timeline',
      label: 'meterEvents.openTimeline',
      permission: METER_EVENTS_RES.detail,
      to: (row) => `${METER_EVENTS_RES.detail}?${new URLSearchParams({ meterId: row.meterId, startDay, endDay })}`,
    };
    return {
      definition: meterEventsAnalytics,
      api: meterEventsApi,
      rowKey: 'key',
      rowActions: [timeline, acknowledgeAction] as unknown as RowAction[],
    };
  }, [periodKey]);
  const filters = useAnalyticsFilters(useMemo(() => analyticsCrud(screen), [screen]));
  return (
    <AnalyticsPage screen={screen}>
      <EventStorms key={JSON.stringify(filters)} filters={filters} />
    </AnalyticsPage>
  );
}

const detailScreen: AnalyticsScreen = {
  definition: meterEventsDetailAnalytics,
  api: meterEventsDetailApi,
  rowKey: 'key',
  rowActions: [acknowledgeAction as unknown as RowAction],
};

/** A meter's event timeline (`?meterId=`): its events as dots by level over the period, then the list with their acknowledgement. */
export function MeterEventsDetailPage() {
  const [params] = useSearchParams();
  const meterId = params.get('meterId');
  if (!meterId) return <MeterDetailMissing list={METER_EVENTS_RES.page} />;
  return (
    <AnalyticsPage
      screen={detailScreen}
      fixed={{ meterId }}
      header={(figures) => (
        <AnalyticsDetailHeader title="meterEvents.detailTitle" name={figures?.devAddr} list={METER_EVENTS_RES.page} />
      )}
    />
  );
}
