import { MAX_ANALYSIS_RANGE_DAYS, TASK_ANALYSIS_RES, taskAnalysisApi, taskAnalysisEntity } from '@meterdesk/contracts';
import { useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { defineCrud } from '@/crud/crud-config';
import { CrudListPage } from '@/crud/crud-list-page';

export const ANALYSIS_RANGE = {
  label: 'taskAnalysis.timeRange',
  startKey: 'startTime',
  endKey: 'endTime',
  maxDays: MAX_ANALYSIS_RANGE_DAYS,
} as const;

/**
 * The list's crud; a row's analysis opens with the period the list shows (none: the detail's default).
 * Analysis is the one way into a task: a View drawer would only repeat the row's own figures.
 */
const taskAnalysisCrud = (period: URLSearchParams) =>
  defineCrud({
    entity: taskAnalysisEntity,
    operations: { list: taskAnalysisApi.list, exportFile: taskAnalysisApi.export },
    timeRange: ANALYSIS_RANGE,
    viewAction: false,
    rowActions: [
      {
        key: 'detail',
        permission: TASK_ANALYSIS_RES.detail,
        to: (row) => `${TASK_ANALYSIS_RES.detail}?${new URLSearchParams([['id', row.id], ...period]).toString()}`,
      },
    ],
  });

/** Task analysis: the collection tasks with their read success over a period, worst first. */
export function TaskAnalysisListPage() {
  const [params] = useSearchParams();
  const start = params.get(ANALYSIS_RANGE.startKey);
  const end = params.get(ANALYSIS_RANGE.endKey);
  const crud = useMemo(
    () =>
      taskAnalysisCrud(
        new URLSearchParams(
          start && end
            ? [
                [ANALYSIS_RANGE.startKey, start],
                [ANALYSIS_RANGE.endKey, end],
              ]
            : [],
        ),
      ),
    [start, end],
  );
  return <CrudListPage crud={crud} />;
}
