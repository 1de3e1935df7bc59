import { isDateRange, MAX_BATCH_DEVICES, type Meter, meterEntity } from '@meterdesk/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Alert, App, Button, Empty, Flex, Table, type TableColumnsType } from 'antd';
import { type Key, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { callApi } from '@/api/api-client';
import { describeField, requestShape, shownValue } from '@/crud/crud-config';
import { FilterBar } from '@/crud/filter-bar';
import { FieldValue } from '@/fields/field-value';
import { errorText } from '@/i18n/message-text';
import { useLanguage } from '@/i18n/use-language';
import { meterCrud } from '@/resources/archive/meter.resource';

type Filters = Record<string, string | number>;
export interface PickedMeter {
  id: string;
  devAddr: string;
}

/**
 * spec §5: a batch holds at most 30 meters, the first ones preferred. Rows added in one go (a page's
 * "select all") join in the order the list shows them, after those already chosen.
 */
export function capSelection(
  kept: readonly PickedMeter[],
  added: readonly PickedMeter[],
): { picked: PickedMeter[]; cut: boolean } {
  const all = [...kept, ...added];
  return { picked: all.slice(0, MAX_BATCH_DEVICES), cut: all.length > MAX_BATCH_DEVICES };
}

/**
 * Meters chosen for a batch (an operation, a tariff push): the meter list's own filters and columns
 * (the meter entity's declaration), up to 30 meters chosen across pages.
 */
export function MeterPicker({
  picked,
  onChange,
  initialFilters = {},
  testIdPrefix = 'batch',
}: {
  picked: readonly PickedMeter[];
  onChange: (next: PickedMeter[]) => void;
  /** The list's filters at first (a link that chose them: a parameter template's Apply). */
  initialFilters?: Filters;
  /** Test ids `<prefix>-selected` and `<prefix>-clear`, one pair per screen. */
  testIdPrefix?: string;
}) {
  const { t } = useTranslation();
  const language = useLanguage();
  const { message } = App.useApp();
  const [filters, setFilters] = useState<Filters>(initialFilters);
  const [paging, setPaging] = useState({ curPage: 1, pageSize: 10 });

  const filterFields = useMemo(
    () =>
      meterEntity.filters
        .filter((f) => !isDateRange(f))
        .map((f) => describeField(meterCrud, f.field, requestShape(meterCrud.list)[f.field])),
    [],
  );
  const body = { ...filters, ...paging };
  const meters = useQuery({
    queryKey: [meterEntity.name, 'list', 'batch', body],
    queryFn: ({ signal }) => {
      if (!meterCrud.list) throw new Error('the meter entity has no list');
      return callApi(meterCrud.list, body, { signal }) as Promise<{ list: Meter[]; total: number }>;
    },
    placeholderData: keepPreviousData,
  });

  const columns: TableColumnsType<Meter> = meterEntity.columns.map((column) => {
    const field = describeField(meterCrud, column.field);
    return {
      key: column.field,
      title: t(field.label),
      width: column.width,
      render: (_: unknown, row: Meter) => (
        <FieldValue field={field} value={shownValue(meterCrud, row, column.field, language)} />
      ),
    };
  });

  const select = (keys: readonly Key[]) => {
    const chosen = new Set(keys.map(String));
    const kept = picked.filter((meter) => chosen.has(meter.id));
    const known = new Set(kept.map((meter) => meter.id));
    const added = (meters.data?.list ?? [])
      .filter((row) => chosen.has(row.id) && !known.has(row.id))
      .map((row) => ({ id: row.id, devAddr: row.devAddr }));
    const next = capSelection(kept, added);
    if (next.cut) message.warning(t('operations.screen.selectionLimit', { max: MAX_BATCH_DEVICES }));
    onChange(next.picked);
  };

  return (
    <>
      <FilterBar
        fields={filterFields}
        values={filters}
        onSearch={(next) => {
          const first = { ...paging, curPage: 1 };
          // Search always asks again: the same filters show today's meters, not the cached ones.
          if (JSON.stringify({ ...next, ...first }) === JSON.stringify(body)) void meters.refetch();
          setFilters(next);
          setPaging(first);
        }}
      />
      {meters.error && <Alert type="error" showIcon title={errorText(t, meters.error)} />}
      <Flex justify="space-between" align="center">
        <span data-testid={`${testIdPrefix}-selected`}>
          {t('operations.screen.selected', { count: picked.length, max: MAX_BATCH_DEVICES })}
        </span>
        <Button disabled={picked.length === 0} data-testid={`${testIdPrefix}-clear`} onClick={() => onChange([])}>
          {t('operations.screen.clearSelection')}
        </Button>
      </Flex>
      <Table<Meter>
        rowKey="id"
        size="small"
        columns={columns}
        dataSource={meters.data?.list}
        loading={meters.isFetching}
        scroll={{ x: true }}
        rowSelection={{
          selectedRowKeys: picked.map((meter) => meter.id),
          preserveSelectedRowKeys: true,
          onChange: select,
          getCheckboxProps: (row) => ({ 'data-testid': `select-${row.devAddr}` }) as object,
        }}
        pagination={{
          current: paging.curPage,
          pageSize: paging.pageSize,
          total: meters.data?.total ?? 0,
          pageSizeOptions: [10, MAX_BATCH_DEVICES, 50],
          showSizeChanger: true,
          onChange: (curPage, pageSize) => setPaging({ curPage, pageSize }),
        }}
        locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('crud.empty')} /> }}
      />
    </>
  );
}
