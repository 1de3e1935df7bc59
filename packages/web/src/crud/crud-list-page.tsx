import {
  DeleteOutlined,
  DownloadOutlined,
  EditOutlined,
  EyeOutlined,
  PlusOutlined,
  ReloadOutlined,
  UploadOutlined,
} from '@ant-design/icons';
import { isDateRange, MAX_BATCH_DELETE, type Page } from '@meterdesk/contracts';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Drawer, Empty, Flex, Table, type TableColumnsType, type TableProps } from 'antd';
import { type ReactNode, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { ApiError, callApi } from '@/api/api-client';
import { downloadFile } from '@/api/download';
import { useLiveRefresh } from '@/app/live/live-refresh';
import { usePermissions } from '@/app/permissions/permission-context';
import { isGranted } from '@/app/permissions/permission-index';
import { FieldValue, fieldText } from '@/fields/field-value';
import { errorText } from '@/i18n/message-text';
import { useLanguage } from '@/i18n/use-language';
import {
  type CrudConfig,
  DELETE_ACTION,
  describeField,
  type Row,
  requestShape,
  rowKeyOf,
  shownValue,
} from './crud-config';
import { CrudDetail } from './crud-detail';
import { CrudFormDialog } from './crud-form-dialog';
import { asDeleteResult, useDeleteReport } from './delete-report';
import { ExportDialog } from './export-dialog';
import { FilterBar, filterRefusal } from './filter-bar';
import { ImportDialog } from './import-dialog';
import './crud-list.css';
import { type ListQuery, listRequest, readListQuery, sameQuery, writeListQuery } from './list-query';
import { CONFIRM_CANCEL, CONFIRM_OK, RowActionButton, useRowActions } from './row-actions';

/** Empty `children` would give a leaf an expand button in antd's tree table. */
function pruneLeaves(nodes: readonly Row[]): Row[] {
  return nodes.map(({ children, ...node }) =>
    Array.isArray(children) && children.length ? { ...node, children: pruneLeaves(children as Row[]) } : node,
  );
}

/** A single-line list's column without a declared width takes what is left, but not less than this. */
const FLEXIBLE_MIN_WIDTH = 200;
/** Room for one row action button in a single-line list's fixed-width actions column. */
const ACTION_WIDTH = 80;
/** The cell's own padding, so one button's column still fits its 'Actions' title on one line. */
const CELL_PADDING = 32;

type Column = CrudConfig['entity']['columns'][number];

/** The entity's columns as the list draws them: each alone, or with the others of its stack (`stackedColumns`), first its own. */
function columnGroups(crud: CrudConfig): [Column, ...Column[]][] {
  const { columns } = crud.entity;
  const stackOf = new Map(crud.stackedColumns.flatMap((stack) => stack.map((field) => [field, stack] as const)));
  return columns.flatMap((column): [Column, ...Column[]][] => {
    const stack = stackOf.get(column.field);
    if (!stack) return [[column]];
    if (stack[0] !== column.field) return [];
    const below = stack.slice(1).flatMap((field) => columns.filter((c) => c.field === field));
    return [[column, ...below]];
  });
}

/** A stack is as wide as its widest member. */
function groupWidth(group: readonly Column[]): number | undefined {
  const widths = group.flatMap((column) => (column.width === undefined ? [] : [column.width]));
  return widths.length ? Math.max(...widths) : undefined;
}

function tableWidth(crud: CrudConfig): number {
  return columnGroups(crud).reduce((sum, group) => sum + (groupWidth(group) ?? FLEXIBLE_MIN_WIDTH), 0);
}

/** A list page; an archive list also says when the caller's account reaches no grid (`noScope`). */
type ListAnswer = Page<Row> & { noScope?: boolean };

/**
 * The total the pager counts pages by. A capped total ("more than 1,000") leaves a next page after
 * any full page, so the user can read past the cap one page at a time.
 */
function pagerTotal(answer: ListAnswer | undefined, query: ListQuery): number {
  if (!answer) return 0;
  if (!answer.totalCapped) return answer.total;
  const more = answer.nextCursor !== undefined || answer.list.length === query.pageSize;
  return Math.max(answer.total, (query.curPage + (more ? 1 : 0)) * query.pageSize);
}

/**
 * Reads the list's page again when a live device change concerns one of its rows (`crud.liveRows`),
 * following the node its grid filter names, else the caller's scope; a storm past what a message
 * lists reads it again too.
 */
function LiveRows({
  rows,
  concerns,
  gridId,
  refresh,
}: {
  rows: readonly Row[];
  concerns: NonNullable<CrudConfig['liveRows']>;
  gridId: unknown;
  refresh: () => void;
}) {
  const nodes = useMemo(() => (typeof gridId === 'string' && gridId ? [gridId] : undefined), [gridId]);
  useLiveRefresh(nodes, {
    concerns: (update) =>
      update.omitted > 0 || update.changes.some((change) => rows.some((row) => concerns(row, change))),
    refresh,
  });
  return null;
}

/**
 * The entity's list: filters, sortable columns and paging kept in the URL (or, for a tree, the whole
 * tree), the row actions the user holds, add and export. `keepParams` are URL parameters of the page
 * around the list (e.g. its tab) that the list must not drop.
 */
/**
 * An action on the rows selected in the list (an analytics page's clock sync): the list offers row
 * selection up to `max` rows and shows the action beside its buttons, given the selected rows.
 */
export interface SelectedRowsAction {
  max: number;
  /** The warning shown when a choice (the whole page) holds more than `max` rows; its first are kept. */
  limitText: string;
  render: (rows: Row[], clear: () => void) => ReactNode;
}

/** Keys a list's requests carry besides its filters: a detail page's meter, or the meters it overlays. */
export type FixedKeys = Readonly<Record<string, string | readonly string[]>>;

export function CrudListPage({
  crud,
  keepParams = [],
  fixed,
  belowFilters,
  selectedAction,
  emptyText,
}: {
  crud: CrudConfig;
  keepParams?: readonly string[];
  /** Keys every list and export request carries, not filters of the bar (an analytics detail's meter or meters). */
  fixed?: FixedKeys;
  /** What the filters also govern, shown between them and the table (an analytics page's summary and chart). */
  belowFilters?: ReactNode;
  selectedAction?: SelectedRowsAction;
  /** What an empty table says instead of 'No records' (clock monitoring: no meter beyond its threshold). */
  emptyText?: string;
}) {
  const { t } = useTranslation();
  const language = useLanguage();
  const { message, modal } = App.useApp();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const reportDelete = useDeleteReport();
  const permissions = usePermissions();
  const [params, setParams] = useSearchParams();
  const [viewing, setViewing] = useState<Row | null>(null);
  const [exporting, setExporting] = useState(false);
  const rowActions = useRowActions(crud);
  const { entity } = crud;

  // A date range is drawn by the time-range picker of the crud config, not as a field of the bar.
  const filterFields = useMemo(
    () =>
      entity.filters
        .filter((f) => !isDateRange(f))
        .map((f) => describeField(crud, f.field, requestShape(crud.list)[f.field])),
    [crud, entity],
  );
  const query = useMemo(
    () =>
      readListQuery(
        params,
        filterFields,
        new Set(entity.columns.filter((c) => c.sortable).map((c) => c.field)),
        crud.timeRange,
      ),
    [params, filterFields, entity, crud],
  );
  // A list that pages by cursor answers the next page's `nextCursor`; that page is then asked for by
  // it (read from an index at any depth) rather than by its number. Known cursors stay per query.
  const cursors = useRef(new Map<string, string>());
  const pageKey = (curPage: number) => JSON.stringify({ ...listRequest({ ...query, curPage: 1 }), ...fixed, curPage });
  const after = cursors.current.get(pageKey(query.curPage));
  const body = { ...listRequest(query), ...fixed, ...(after ? { after } : {}) };
  const list = useQuery({
    // Two lists of one entity (a page's tabs) differ by operation, not by request.
    queryKey: [entity.name, 'list', (crud.tree ?? crud.list)?.path, body],
    queryFn: async ({ signal }): Promise<ListAnswer> => {
      if (crud.tree) {
        const nodes = pruneLeaves((await callApi(crud.tree, {}, { signal })) as Row[]);
        return { list: nodes, total: nodes.length, curPage: 1, pageSize: nodes.length };
      }
      if (!crud.list) throw new ApiError(404, 'wrongApi');
      const answer = (await callApi(crud.list, body, { signal })) as ListAnswer;
      if (answer.nextCursor) cursors.current.set(pageKey(query.curPage + 1), answer.nextCursor);
      return answer;
    },
    placeholderData: keepPreviousData,
  });

  // A filter the server found nothing for (an unknown serial) is said at the filter, and the table is empty.
  const refusedFilters = useMemo(() => filterRefusal(list.error, filterFields, t), [list.error, filterFields, t]);

  // A selection belongs to the rows it was made on: another page, filter or sort starts a new one.
  const bodyKey = JSON.stringify(body);
  const [selection, setSelection] = useState<{ of: string; keys: string[] }>({ of: bodyKey, keys: [] });
  const selected = selection.of === bodyKey ? selection.keys : [];
  const maxSelected = selectedAction?.max ?? MAX_BATCH_DELETE;
  const select = (keys: string[]) => {
    // spec §5: at most 30 rows; of a larger choice (the whole page) the first rows stay.
    if (keys.length > maxSelected) {
      const order = new Map(list.data?.list.map((row, index) => [keyOf(row), index]));
      keys.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
      message.warning(t(selectedAction?.limitText ?? 'crud.selectionLimit', { max: maxSelected }));
    }
    setSelection({ of: bodyKey, keys: keys.slice(0, maxSelected) });
  };

  const batchDelete = useMutation({
    mutationFn: (ids: string[]) => {
      if (!crud.batchRemove) throw new ApiError(404, 'wrongApi');
      return callApi(crud.batchRemove, { ids });
    },
    onSuccess: async (answer) => {
      const result = asDeleteResult(answer);
      if (result) reportDelete(result);
      setSelection({ of: bodyKey, keys: [] });
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: [entity.name] }),
        queryClient.invalidateQueries({ queryKey: ['lookup'] }),
      ]);
    },
    onError: (error) => message.error(errorText(t, error)),
  });
  const confirmBatchDelete = () =>
    modal.confirm({
      title: t('crud.confirmDeleteSelected', { count: selected.length }),
      okText: t('common.actions.delete'),
      cancelText: t('common.actions.cancel'),
      okButtonProps: { danger: true, 'data-testid': CONFIRM_OK },
      cancelButtonProps: { 'data-testid': CONFIRM_CANCEL },
      onOk: () => batchDelete.mutateAsync(selected).catch(() => undefined),
    });

  const exportFile = useMutation({
    mutationFn: () => {
      if (!crud.exportFile) throw new ApiError(404, 'wrongApi');
      const accepted = requestShape(crud.exportFile);
      return downloadFile(crud.exportFile, Object.fromEntries(Object.entries(body).filter(([key]) => key in accepted)));
    },
    onError: (error) => message.error(errorText(t, error)),
  });

  const { add: addPath, edit: editPath, detail: detailPath } = crud.pages;
  const dialog = crud.formDialog;
  const canAdd = Boolean(crud.create) && (dialog ? permissions.buttons.has(dialog) : permissions.pages.has(addPath));
  const canEdit = Boolean(crud.update) && (dialog ? permissions.buttons.has(dialog) : permissions.pages.has(editPath));
  // The record a form dialog edits, or `{}` while it adds one.
  const [editing, setEditing] = useState<{ row?: Row } | null>(null);
  const canExport = Boolean(crud.exportFile) && permissions.buttons.has(`${entity.pagePath}/export`);
  const canImport = Boolean(crud.importCalls) && permissions.buttons.has(`${entity.pagePath}/import`);
  const [importing, setImporting] = useState(false);
  const canBatchDelete = Boolean(crud.batchRemove) && isGranted(permissions, `${entity.pagePath}/${DELETE_ACTION}`);
  const hasDetailPage = Boolean(crud.detail) && permissions.pages.has(detailPath);
  const show = (next: ListQuery) => {
    const written = writeListQuery(next);
    for (const name of keepParams) {
      const kept = params.get(name);
      if (kept !== null) written.set(name, kept);
    }
    setParams(written);
  };
  const keyOf = (row: Row) => rowKeyOf(crud, row);
  // Everything the page shows of the entity asks again (an analytics page's summary with its rows).
  const refresh = () => void queryClient.invalidateQueries({ queryKey: [entity.name] });
  /** Search asks again even when nothing changed: the user wants today's rows, not the cached ones. */
  const search = (filters: ListQuery['filters']) => {
    const next = { ...query, filters, curPage: 1 };
    if (sameQuery(next, query)) refresh();
    else show(next);
  };

  const singleLine = crud.singleLineRows;
  // A user who may do nothing with a row gets no empty Actions column.
  const listActions = rowActions.held.filter((action) => !action.detailOnly);
  const actionCount = Number(crud.viewAction) + Number(canEdit) + listActions.length;
  /** A field's value in its cell: its own component, a one-line text, or the field's renderer. */
  const cell = (key: string, row: Row) => {
    const field = describeField(crud, key);
    const value = shownValue(crud, row, key, language);
    const Cell = crud.cells[key];
    if (Cell) return <Cell row={row} value={value} field={field} />;
    if (!singleLine) return <FieldValue field={field} value={value} />;
    const text = fieldText(field, value, t);
    return (
      <span title={text} data-testid={`cell-${key}`}>
        {text}
      </span>
    );
  };
  const columns: TableColumnsType<Row> = [
    ...columnGroups(crud).map((group) => {
      const sortable = crud.tree ? undefined : group.find((column) => column.sortable === true);
      const key = (sortable ?? group[0]).field;
      const labels = group.map((column) => t(describeField(crud, column.field).label));
      return {
        key,
        dataIndex: key,
        title:
          labels.length === 1 ? (
            labels[0]
          ) : (
            <Flex vertical>
              {labels.map((label) => (
                <span key={label}>{label}</span>
              ))}
            </Flex>
          ),
        width: groupWidth(group) ?? (singleLine ? FLEXIBLE_MIN_WIDTH : undefined),
        ellipsis: singleLine ? { showTitle: false } : undefined,
        sorter: Boolean(sortable),
        sortOrder: sortable && query.sortField === key ? (query.sortOrder ?? null) : null,
        render: (_: unknown, row: Row) =>
          group.length === 1 ? (
            cell(key, row)
          ) : (
            <Flex vertical gap={4} align="start">
              {group.map((column) => (
                <div key={column.field}>{cell(column.field, row)}</div>
              ))}
            </Flex>
          ),
      };
    }),
    ...(actionCount === 0 ? [] : [actionsColumn()]),
  ];

  function actionsColumn(): TableColumnsType<Row>[number] {
    return {
      key: 'actions',
      title: t('crud.columnsActions'),
      fixed: 'right',
      width: singleLine ? CELL_PADDING + ACTION_WIDTH * actionCount : undefined,
      render: (_: unknown, row: Row) => {
        const key = keyOf(row);
        const id = encodeURIComponent(key);
        return (
          <Flex gap={4} wrap={false}>
            {crud.viewAction && (
              <RowActionButton
                crud={crud}
                action={{ key: 'view', label: 'common.actions.view', icon: <EyeOutlined /> }}
                rowKey={key}
                onClick={() => (hasDetailPage ? navigate(`${detailPath}?id=${id}`) : setViewing(row))}
              />
            )}
            {canEdit && (
              <RowActionButton
                crud={crud}
                action={{ key: 'edit', label: 'common.actions.edit', icon: <EditOutlined /> }}
                rowKey={key}
                onClick={() => (dialog ? setEditing({ row }) : navigate(`${editPath}?id=${id}`))}
              />
            )}
            {rowActions
              .visibleFor(row)
              .filter((action) => !action.detailOnly)
              .map((action) => (
                <RowActionButton
                  key={action.key}
                  crud={crud}
                  action={action}
                  rowKey={key}
                  onClick={() => rowActions.trigger(action, row)}
                />
              ))}
          </Flex>
        );
      },
    };
  }

  const onTableChange: TableProps<Row>['onChange'] = (pagination, _filters, sorter, extra) => {
    const sort = Array.isArray(sorter) ? sorter[0] : sorter;
    const sortOrder = sort?.order ?? undefined;
    show({
      ...query,
      curPage: extra.action === 'paginate' ? (pagination.current ?? 1) : 1,
      pageSize: pagination.pageSize ?? query.pageSize,
      sortField: sortOrder ? String(sort?.columnKey) : undefined,
      sortOrder,
    });
  };

  return (
    <Flex vertical gap="middle" data-testid={`${entity.name}-list`}>
      <FilterBar
        fields={filterFields}
        values={query.filters}
        timeRange={crud.timeRange}
        onSearch={search}
        errors={refusedFilters}
      />
      {belowFilters}
      <Flex justify="end" gap="small">
        <Button icon={<ReloadOutlined />} loading={list.isFetching} data-testid="crud-refresh" onClick={refresh}>
          {t('crud.refresh')}
        </Button>
        {selectedAction?.render(
          (list.data?.list ?? []).filter((row) => selected.includes(keyOf(row))),
          () => setSelection({ of: bodyKey, keys: [] }),
        )}
        {canBatchDelete && (
          <Button
            danger
            icon={<DeleteOutlined />}
            disabled={selected.length === 0}
            loading={batchDelete.isPending}
            data-testid="crud-delete-selected"
            onClick={confirmBatchDelete}
          >
            {t('crud.deleteSelected', { count: selected.length })}
          </Button>
        )}
        {canExport && (
          <Button
            icon={<DownloadOutlined />}
            loading={exportFile.isPending}
            data-testid="crud-export"
            onClick={() => (crud.exportDialog ? setExporting(true) : exportFile.mutate())}
          >
            {t(crud.exportDialog ? 'crud.exportDialog.button' : 'crud.export')}
          </Button>
        )}
        {canImport && (
          <Button icon={<UploadOutlined />} data-testid="crud-import" onClick={() => setImporting(true)}>
            {t('crud.import')}
          </Button>
        )}
        {canAdd && (
          <Button
            type="primary"
            icon={<PlusOutlined />}
            data-testid="crud-add"
            onClick={() => (dialog ? setEditing({}) : navigate(addPath))}
          >
            {t('common.actions.add')}
          </Button>
        )}
      </Flex>
      {list.error && !refusedFilters && (
        <Alert
          type="error"
          showIcon
          title={errorText(t, list.error)}
          action={<Button onClick={() => list.refetch()}>{t('common.actions.retry')}</Button>}
        />
      )}
      <Table<Row>
        // A tree opens fully expanded, which antd applies only to the rows of the first render.
        key={crud.tree && list.data ? 'tree' : 'table'}
        className={crud.tree ? 'md-tree-list' : undefined}
        rowKey={keyOf}
        onRow={crud.rowTestId ? (row) => ({ 'data-testid': `${crud.rowTestId}-${keyOf(row)}` }) as object : undefined}
        columns={columns}
        dataSource={refusedFilters ? [] : list.data?.list}
        loading={list.isFetching}
        onChange={onTableChange}
        // Columns narrow (wrapping their text) before the page scrolls sideways; sized to their content
        // instead, the last ones lay under the fixed Actions column on a 1440 px screen.
        scroll={{ x: singleLine ? tableWidth(crud) + ACTION_WIDTH : true }}
        tableLayout={singleLine ? 'fixed' : 'auto'}
        expandable={crud.tree ? { defaultExpandAllRows: true } : undefined}
        rowSelection={
          canBatchDelete || selectedAction
            ? {
                selectedRowKeys: selected,
                onChange: (keys) => select(keys.map(String)),
                getCheckboxProps: (row) =>
                  ({
                    'data-testid': `select-${keyOf(row)}`,
                    // A full selection takes no more rows, so one click never drops another row.
                    disabled: selected.length >= maxSelected && !selected.includes(keyOf(row)),
                  }) as object,
              }
            : undefined
        }
        locale={{
          emptyText: (
            <Empty
              image={Empty.PRESENTED_IMAGE_SIMPLE}
              description={list.data?.noScope ? t('crud.noScope') : (emptyText ?? t('crud.empty'))}
              data-testid={list.data?.noScope ? 'crud-no-scope' : undefined}
            />
          ),
        }}
        pagination={
          crud.tree
            ? false
            : {
                current: query.curPage,
                pageSize: query.pageSize,
                total: refusedFilters ? 0 : pagerTotal(list.data, query),
                showSizeChanger: true,
                showTotal: () =>
                  list.data?.totalCapped && !refusedFilters
                    ? t('crud.totalCapped', { total: list.data.total.toLocaleString(language) })
                    : t('crud.total', { count: refusedFilters ? 0 : (list.data?.total ?? 0) }),
              }
        }
      />
      <Drawer
        open={viewing !== null}
        onClose={() => setViewing(null)}
        title={t('crud.detailTitle')}
        size={560}
        destroyOnHidden
      >
        {viewing && (crud.View ? <crud.View crud={crud} row={viewing} /> : <CrudDetail crud={crud} record={viewing} />)}
      </Drawer>
      {rowActions.dialog}
      {importing && crud.importCalls && (
        <ImportDialog
          calls={crud.importCalls}
          title={t('crud.importTitle', { name: t(`${entity.name}.exportName`) })}
          queryKey={[entity.name]}
          onClose={() => setImporting(false)}
        />
      )}
      {exporting && <ExportDialog crud={crud} query={body} onClose={() => setExporting(false)} />}
      {crud.liveRows && (
        <LiveRows
          rows={list.data?.list ?? []}
          concerns={crud.liveRows}
          gridId={query.filters.gridId}
          refresh={() => void queryClient.invalidateQueries({ queryKey: [entity.name, 'list'] })}
        />
      )}
      {editing && <CrudFormDialog crud={crud} record={editing.row} onClose={() => setEditing(null)} />}
    </Flex>
  );
}
