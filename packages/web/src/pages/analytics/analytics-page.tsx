import {
  type AnalyticsApi,
  type AnalyticsDefinition,
  type AnalyticsEntity,
  addUtcDays,
  type ChartSpec,
  fieldMeta,
  isDateRange,
  PERIOD_KEYS,
} from '@meterdesk/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Alert, Card, Flex, Skeleton, Statistic } from 'antd';
import { type ReactNode, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import type { z } from 'zod';
import { callApi } from '@/api/api-client';
import { Chart } from '@/charts/chart';
import { specData } from '@/charts/chart-option';
import {
  type CrudConfig,
  defineCrud,
  describeField,
  describeSchemaField,
  type FieldCell,
  type RowAction,
  requestShape,
} from '@/crud/crud-config';
import { CrudListPage, type FixedKeys, type SelectedRowsAction } from '@/crud/crud-list-page';
import { filterRefusal } from '@/crud/filter-bar';
import { readListQuery, shownPeriod } from '@/crud/list-query';
import { fieldText } from '@/fields/field-value';
import { errorText } from '@/i18n/message-text';

// biome-ignore lint/suspicious/noExplicitAny: a page's own figures and points are its business, the kit draws any.
export type AnyAnalytics = AnalyticsDefinition<AnalyticsEntity, z.ZodObject<any>, z.ZodObject<any>>;

export interface AnalyticsScreen {
  definition: AnyAnalytics;
  api: AnalyticsApi;
  /** The row field that keys it (a meter's id, a day), or the fields that do together (a meter's month). */
  rowKey: string | readonly string[];
  /** Drill-downs from a row: a detail page, with the period the list shows. */
  rowActions?: readonly RowAction[];
  /** Test ids of the table's rows (`<rowTestId>-<row key>`), for a journey that watches one. */
  rowTestId?: string;
}

/**
 * A figure as the summary strip and the table both show it: grouped by thousands (61,458.002), at most
 * three decimals (the server's kWh). Exports keep the raw number.
 */
export const figureText = (value: number): string => value.toLocaleString('en', { maximumFractionDigits: 3 });

/** A number cell of the table, written as the summary strip writes its figures. */
const FigureCell: FieldCell = ({ value }) => (typeof value === 'number' ? figureText(value) : null);

/** The crud the kit's table runs on: the page's rows, its export (columns and format) and its period. */
export function analyticsCrud({ definition, api, rowKey, rowActions = [], rowTestId }: AnalyticsScreen): CrudConfig {
  const { period } = definition;
  return defineCrud({
    entity: definition.entity,
    operations: { list: api.list, exportFile: api.export },
    exportDialog: true,
    rowKey: rowKey as never,
    rowActions,
    // A row shows all its figures already: a View drawer would only repeat them.
    viewAction: false,
    rowTestId,
    // Its figures read as the summary's (the row's number fields; a select's code keeps its label).
    cells: Object.fromEntries(
      definition.entity.columns
        .map((column) => column.field)
        .filter((key) => fieldMeta(definition.entity.record.shape[key] as z.ZodType)?.widget === 'number')
        .map((key) => [key, FigureCell]),
    ),
    // A page about now (period `none`) has no period to choose.
    ...(period.unit !== 'none' && {
      timeRange: {
        label: 'analytics.period',
        startKey: PERIOD_KEYS[period.unit].start,
        endKey: PERIOD_KEYS[period.unit].end,
        maxDays: period.unit === 'day' ? period.maxDays : period.maxMonths * 31,
        period,
      },
    }),
  });
}

/** The period the list shows (the URL's, or the default), as the URL parameters a drill-down passes on. */
export function periodParams(definition: AnyAnalytics, params: URLSearchParams): Record<string, string> {
  if (definition.period.unit === 'none') return {};
  const keys = PERIOD_KEYS[definition.period.unit];
  const [start, end] = shownPeriod(definition.period, params);
  return { [keys.start]: start, [keys.end]: end };
}

/** The fields of the filter bar (the period is the time range's). */
const barFields = (crud: CrudConfig) =>
  crud.entity.filters
    .filter((f) => !isDateRange(f))
    .map((f) => describeField(crud, f.field, requestShape(crud.list)[f.field]));

/**
 * The filters and period in the URL as the page's calls send them, with its fixed keys: what the
 * summary asks for, and what a page's own panel (meter events' storms) reads alongside.
 */
export function useAnalyticsFilters(
  crud: CrudConfig,
  fixed?: Readonly<Record<string, string>>,
): Record<string, string | number> {
  const [params] = useSearchParams();
  const filterFields = useMemo(() => barFields(crud), [crud]);
  const { filters } = readListQuery(params, filterFields, new Set(), crud.timeRange);
  return { ...filters, ...fixed };
}

/** The label of a figure or point field, as its schema declares it. */
const labelOf = (schema: z.ZodObject, key: string) => fieldMeta(schema.shape[key] as z.ZodType)?.label ?? key;

/** The label key of each option of a point field that has options (a profile state), by value. */
const optionLabels = (schema: z.ZodObject, key: string) =>
  new Map((fieldMeta(schema.shape[key] as z.ZodType)?.options ?? []).map((o) => [String(o.value), o.label]));

function SummaryStrip({
  definition,
  figures,
  loading,
  error,
}: {
  definition: AnyAnalytics;
  figures: Record<string, unknown> | undefined;
  loading: boolean;
  error: unknown;
}) {
  const { t } = useTranslation();
  const name = definition.entity.name;
  if (error)
    return <Alert data-testid={`analytics-summary-${name}`} type="error" showIcon title={errorText(t, error)} />;
  const keys = Object.keys(definition.summary.shape);
  return (
    <Card size="small" data-testid={`analytics-summary-${name}`}>
      <Flex wrap gap={32}>
        {keys.map((key) =>
          loading && !figures ? (
            <Skeleton.Input key={key} active size="small" />
          ) : (
            <Statistic
              key={key}
              data-testid={`analytics-figure-${key}`}
              title={t(labelOf(definition.summary, key))}
              value={figures?.[key] === null || figures?.[key] === undefined ? '–' : (figures[key] as string | number)}
              // A text figure is shown as the table shows its field: a serial or a day as it is (not
              // grouped like a number), a moment in the browser's time zone, a code by its option's label.
              formatter={
                typeof figures?.[key] === 'string'
                  ? (value) => fieldText(describeSchemaField(key, definition.summary.shape[key], ''), value, t)
                  : typeof figures?.[key] === 'number'
                    ? (value) => figureText(Number(value))
                    : undefined
              }
            />
          ),
        )}
      </Flex>
    </Card>
  );
}

/**
 * An analytics page as its contracts declare it: the summary strip and the chart of the filters and
 * period in the URL between the filter bar that governs them and the table with its sort, paging,
 * refresh and export. `fixed` keys (a detail page's meter) go with every call; `children` come
 * between the chart and the table.
 */
export function AnalyticsPage({
  screen,
  fixed,
  header,
  children,
  keepParams = [],
  selectedAction,
  chart,
  emptyText,
}: {
  screen: AnalyticsScreen;
  fixed?: FixedKeys;
  /** What the chart draws instead of the page's declared chart (another channel of the points). */
  chart?: ChartSpec;
  /** URL parameters of the page around the kit (a view switch) that its filter bar must keep. */
  keepParams?: readonly string[];
  /** An action on the selected rows of the table (clock sync). */
  selectedAction?: SelectedRowsAction;
  /** Above the summary; given the figures once they arrive (a detail names its meter by them). */
  header?: (figures: Record<string, unknown> | undefined) => ReactNode;
  /** What an empty table says, given the figures once they arrive (the threshold it lists meters beyond). */
  emptyText?: (figures: Record<string, unknown> | undefined) => string | undefined;
  children?: ReactNode;
}) {
  const { t } = useTranslation();
  const { definition, api } = screen;
  const crud = useMemo(() => analyticsCrud(screen), [screen]);
  const body = { ...useAnalyticsFilters(crud), ...fixed };
  const summary = useQuery({
    queryKey: [definition.entity.name, 'summary', body],
    queryFn: ({ signal }) =>
      callApi(api.summary, body, { signal }) as Promise<{
        figures: Record<string, unknown>;
        points: Record<string, unknown>[];
      }>,
    placeholderData: keepPreviousData,
  });
  // A time axis spans the chosen period (its first UTC day's start to its last's end), not just the points'.
  const [params] = useSearchParams();
  const [firstDay, lastDay] = definition.period.unit === 'day' ? shownPeriod(definition.period, params) : [];
  const chartData = useMemo(() => {
    const spec = chart ?? definition.chart;
    const options = optionLabels(definition.point, spec.x);
    const xRange =
      firstDay && lastDay
        ? ([`${firstDay}T00:00:00.000Z`, `${addUtcDays(lastDay, 1)}T00:00:00.000Z`] as const)
        : undefined;
    const rowLabel = spec.rows?.valueLabel;
    return specData(
      spec,
      summary.data?.points ?? [],
      (field) => t(labelOf(definition.point, field)),
      (value) => (options.has(String(value)) ? t(options.get(String(value)) as string) : value),
      { xRange, ...(rowLabel && { dotName: (value: number) => t(rowLabel, { value }) }) },
    );
  }, [definition, chart, summary.data, t, firstDay, lastDay]);
  // A filter that finds nothing (an unknown serial) is said once, at the filter (the table's refusal
  // alike): the strip has no figures and there is no chart, rather than a second alert.
  const refused = useMemo(
    () => filterRefusal(summary.error, barFields(crud), t) !== undefined,
    [summary.error, crud, t],
  );

  const figuresAndChart = (
    <>
      <SummaryStrip
        definition={definition}
        figures={refused ? undefined : summary.data?.figures}
        loading={summary.isPending}
        error={refused ? null : summary.error}
      />
      {!summary.error && (
        <Card size="small">
          {summary.isPending ? (
            <Skeleton active paragraph={{ rows: 5 }} />
          ) : (
            <Chart data={chartData} testId={`analytics-chart-${definition.entity.name}`} />
          )}
        </Card>
      )}
      {children}
    </>
  );
  return (
    <Flex vertical gap={16} data-testid={`analytics-page-${definition.entity.name}`}>
      {header?.(summary.data?.figures)}
      <CrudListPage
        crud={crud}
        fixed={fixed}
        keepParams={[...Object.keys(fixed ?? {}), ...keepParams]}
        belowFilters={figuresAndChart}
        selectedAction={selectedAction}
        emptyText={emptyText?.(refused ? undefined : summary.data?.figures)}
      />
    </Flex>
  );
}
