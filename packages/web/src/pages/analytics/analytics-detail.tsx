import { ArrowLeftOutlined } from '@ant-design/icons';
import { Button, Empty, Flex, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { RowAction } from '@/crud/crud-config';

/** A row's drill-down to a meter's detail page `to`, for the period (or date) the list shows. */
export function meterDetail<R extends { meterId: string }>(
  permission: string,
  to: string,
  period: Record<string, string>,
): RowAction {
  const action: RowAction<R> = {
    key: 'detail',
    label: 'analytics.openDetail',
    permission,
    to: (row) => `${to}?${new URLSearchParams({ meterId: row.meterId, ...period }).toString()}`,
  };
  return action as unknown as RowAction;
}

/** A detail page opened without its meter (a bookmark cut short): the way back to the list. */
export function MeterDetailMissing({ list }: { list: string }) {
  const { t } = useTranslation();
  return (
    <Empty data-testid="analytics-detail-missing" description={t('analytics.pickFromList')}>
      <Link to={list}>
        <Button>{t('analytics.backToList')}</Button>
      </Link>
    </Empty>
  );
}

/** A detail page's title, naming its record (a meter's serial, once the summary has it), and the way back. */
export function AnalyticsDetailHeader({ title, name, list }: { title: string; name: unknown; list: string }) {
  const { t } = useTranslation();
  return (
    <Flex align="center" gap={12}>
      <Link to={list} data-testid="analytics-back">
        <Button icon={<ArrowLeftOutlined />}>{t('analytics.backToList')}</Button>
      </Link>
      <Typography.Title level={4} style={{ margin: 0 }} data-testid="analytics-detail-title">
        {t(title, { name: typeof name === 'string' ? name : '' })}
      </Typography.Title>
    </Flex>
  );
}
