import type { BatchDeleteResult } from '@meterdesk/contracts';
import { App, Table } from 'antd';
import { useTranslation } from 'react-i18next';

/** A delete's answer when it is a batch delete's `{deleted, failures}`; undefined for any other answer. */
export function asDeleteResult(answer: unknown): BatchDeleteResult | undefined {
  const result = answer as Partial<BatchDeleteResult> | null;
  return typeof result?.deleted === 'number' && Array.isArray(result.failures)
    ? (result as BatchDeleteResult)
    : undefined;
}

export const DELETE_REPORT_OK = 'delete-report-ok';

function RefusedRows({ failures }: { failures: BatchDeleteResult['failures'] }) {
  const { t } = useTranslation();
  return (
    <Table
      size="small"
      rowKey="id"
      pagination={false}
      data-testid="delete-failures"
      dataSource={failures}
      scroll={{ y: 320 }}
      columns={[
        {
          key: 'name',
          title: t('crud.deleteRefusedRecord'),
          width: 200,
          // A row that is gone (deleted meanwhile, or out of the caller's scope) comes back without its name.
          render: (_, failure) => failure.name || failure.id,
        },
        { key: 'reason', title: t('crud.deleteRefusedReason'), render: (_, failure) => t(`errors.${failure.key}`) },
      ]}
    />
  );
}

/**
 * Tells the user how a delete went, one row or a selection alike: a success message when rows went
 * (`done`, or how many), and a dialog naming each row that stayed with its reason.
 */
export function useDeleteReport(): (result: BatchDeleteResult, done?: string) => void {
  const { t } = useTranslation();
  const { modal, message } = App.useApp();
  return (result, done) => {
    if (result.deleted > 0) message.success(done ?? t('crud.deletedCount', { count: result.deleted }));
    if (result.failures.length > 0) {
      modal.warning({
        title: t('crud.deleteRefusedTitle', { count: result.failures.length }),
        content: <RefusedRows failures={result.failures} />,
        width: 600,
        okButtonProps: { 'data-testid': DELETE_REPORT_OK },
      });
    }
  };
}
