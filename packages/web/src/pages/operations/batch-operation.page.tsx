import {
  isDateRange,
  MAX_BATCH_DEVICES,
  METER_OPERATIONS,
  type Meter,
  meterEntity,
  OPERATIONS,
  type OperationName,
  PLAN_RES,
} from '@meterdesk/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Alert, App, Button, Card, Empty, Flex, Form, Select, Table, type TableColumnsType } from 'antd';
import { type Key, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { callApi } from '@/api/api-client';
import { usePermissions } from '@/app/permissions/permission-context';
import { describeField, objectShape, requestShape, shownValue } from '@/crud/crud-config';
import { FilterBar } from '@/crud/filter-bar';
import { FieldValue } from '@/fields/field-value';
import { errorText } from '@/i18n/message-text';
import { useLanguage } from '@/i18n/use-language';
import { meterCrud } from '@/resources/archive/meter.resource';
import { needsConfirm, ParamsFields, paramDefaults, readParams, useGrantedOperations } from './operation-params';
import { PendingApprovals } from './pending-approvals';
import { type PlanRun, usePlanRuns } from './plan-runs';
import { RefusalAlert, ResultsPanel, useConfirm } from './results-panel';

type Filters = Record<string, string | number>;
interface Picked {
  id: string;
  devAddr: string;
}

/**
 * spec §5: a batch holds at most 30 meters, the first ones preferred. Rows added in one go (a page's
 * "select all") join in the order the list shows them, after those already chosen.
 */
export function capSelection(kept: readonly Picked[], added: readonly Picked[]): { picked: Picked[]; cut: boolean } {
  const all = [...kept, ...added];
  return { picked: all.slice(0, MAX_BATCH_DEVICES), cut: all.length > MAX_BATCH_DEVICES };
}

/**
 * What a link to the page chooses (`?operation=applyParamTemplate&templateId=…&meterTypeId=…`, a
 * parameter template's Apply): the operation, its parameters and the meter list's filters.
 */
function preset(search: URLSearchParams, granted: readonly OperationName[]) {
  const named = search.get('operation');
  const operation = granted.find((name) => name === named);
  const filterKeys = new Set<string>(meterEntity.filters.map((f) => f.field));
  const filters = Object.fromEntries([...search].filter(([key]) => filterKeys.has(key)));
  const paramKeys = operation ? Object.keys(objectShape(OPERATIONS[operation].params) ?? {}) : [];
  const params = Object.fromEntries([...search].filter(([key]) => paramKeys.includes(key)));
  return { operation, filters, params };
}

/**
 * Batch operation: the meter list's own filters and columns (the meter entity's declaration), up to 30
 * meters chosen across pages, one operation with its parameters, a confirmation naming the count, and
 * each meter's answer arriving live. Held disconnects wait below for a second user's approval.
 */
export function BatchOperationPage() {
  const { t } = useTranslation();
  const language = useLanguage();
  const { message } = App.useApp();
  const permissions = usePermissions();
  const confirm = useConfirm();
  const granted = useGrantedOperations(METER_OPERATIONS);
  const { runs, start, retry } = usePlanRuns();
  const [form] = Form.useForm();
  const [search] = useSearchParams();
  const [chosen] = useState(() => preset(search, granted));
  const [filters, setFilters] = useState<Filters>(chosen.filters);
  const [paging, setPaging] = useState({ curPage: 1, pageSize: 10 });
  const [picked, setPicked] = useState<Picked[]>([]);
  const [operation, setOperation] = useState<OperationName | undefined>(chosen.operation);
  useEffect(() => {
    if (chosen.operation) form.setFieldsValue({ ...paramDefaults(chosen.operation), ...chosen.params });
  }, [chosen, form]);
  const [refusal, setRefusal] = useState<unknown>(null);
  const [sending, setSending] = useState(false);

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
    setPicked(next.picked);
  };

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
        <span data-testid="batch-selected">
          {t('operations.screen.selected', { count: picked.length, max: MAX_BATCH_DEVICES })}
        </span>
        <Button disabled={picked.length === 0} data-testid="batch-clear" onClick={() => setPicked([])}>
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
