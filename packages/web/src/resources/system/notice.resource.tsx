import { noticeApi, noticeBatchEntity, noticeEntity, type Page } from '@meterdesk/contracts';
import { type QueryClient, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Table } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { callApi } from '@/api/api-client';
import { UNREAD_QUERY_KEY } from '@/app/notices/unread-feed';
import { type CrudConfig, defineCrud, describeField, type Row } from '@/crud/crud-config';
import { CrudDetail } from '@/crud/crud-detail';
import { FieldValue } from '@/fields/field-value';
import { errorText } from '@/i18n/message-text';

/** The caller's notice `id` as the list now holds it (after the refetch a read brings). */
function listedNotice(queryClient: QueryClient, id: unknown): Row | undefined {
  for (const [, page] of queryClient.getQueriesData<Page<Row>>({ queryKey: [noticeEntity.name, 'list'] })) {
    const found = page?.list.find((notice) => notice.id === id);
    if (found) return found;
  }
  return undefined;
}

/**
 * Opening an unread notice reads it; the server then publishes the new count to the badge. The open
 * view shows the read time as soon as the server has it, not only the next time it is opened.
 */
function NoticeView({ crud, row }: { crud: CrudConfig; row: Row }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const sent = useRef(false);
  const [shown, setShown] = useState<Row>(row);

  useEffect(() => {
    if (row.noticeFlag !== 0 || sent.current) return;
    sent.current = true;
    callApi(noticeApi.readnotice, { id: String(row.id) })
      .then(async () => {
        setShown((current) => ({ ...current, noticeFlag: 1, readTime: new Date().toISOString() }));
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: [noticeEntity.name] }),
          // Without a broker nothing is pushed; with one this only repeats what the push says.
          queryClient.invalidateQueries({ queryKey: UNREAD_QUERY_KEY }),
        ]);
        const stored = listedNotice(queryClient, row.id);
        if (stored?.readTime) setShown(stored);
      })
      .catch((error: unknown) => message.error(errorText(t, error)));
  }, [row, queryClient, message, t]);

  return <CrudDetail crud={crud} record={shown} />;
}

export const myNoticeCrud = defineCrud({
  entity: noticeEntity,
  operations: { list: noticeApi.getnoticelogpageforcurrentuser },
  View: NoticeView,
});

const RECIPIENT_COLUMNS = ['recUsername', 'noticeFlag', 'readTime'] as const;

/** Who received a sent batch and who has read it. */
function BatchReadView({ crud, row }: { crud: CrudConfig; row: Row }) {
  const { t } = useTranslation();
  const noticeBatchId = String(row.noticeBatchId);
  const recipients = useQuery({
    queryKey: [crud.entity.name, 'readDetail', noticeBatchId],
    queryFn: ({ signal }) => callApi(noticeApi.getnoticereaddetaillist, { noticeBatchId }, { signal }),
  });
  const fields = RECIPIENT_COLUMNS.map((key) => describeField(myNoticeCrud, key));

  return (
    <>
      <CrudDetail crud={crud} record={row} />
      {recipients.error && <Alert type="error" showIcon title={errorText(t, recipients.error)} />}
      <Table<Row>
        style={{ marginTop: 16 }}
        size="small"
        rowKey={(recipient) => String(recipient.id)}
        loading={recipients.isLoading}
        dataSource={recipients.data}
        pagination={false}
        data-testid="notice-read-detail"
        columns={fields.map((field) => ({
          key: field.key,
          dataIndex: field.key,
          title: t(field.label),
          render: (value: unknown) => <FieldValue field={field} value={value} />,
        }))}
      />
    </>
  );
}

export const noticeBatchCrud = defineCrud({
  entity: noticeBatchEntity,
  operations: { list: noticeApi.getnoticebatchpage },
  rowKey: 'noticeBatchId',
  View: BatchReadView,
});
