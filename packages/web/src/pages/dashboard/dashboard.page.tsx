import { ReloadOutlined } from '@ant-design/icons';
import { DASHBOARD_CARDS, type DashboardCard } from '@meterdesk/contracts';
import { Button, Col, Empty, Flex, Row, Typography } from 'antd';
import type { ComponentType } from 'react';
import { useTranslation } from 'react-i18next';
import { usePermissions } from '@/app/permissions/permission-context';
import { isGranted } from '@/app/permissions/permission-index';
import { useRouterRefresh } from './dashboard-card';
import {
  AlarmsCard,
  AlarmTrendCard,
  ArchiveCard,
  CollectionCard,
  ConsumersCard,
  EnergyCard,
  ModulesCard,
  OperationsCard,
} from './dashboard-cards';

/** The cards in the order they are laid out, with their width on a wide screen (of 24). */
const LAYOUT: { card: DashboardCard; Card: ComponentType; span: number }[] = [
  { card: 'archive', Card: ArchiveCard, span: 6 },
  { card: 'consumers', Card: ConsumersCard, span: 6 },
  { card: 'modules', Card: ModulesCard, span: 6 },
  { card: 'collection', Card: CollectionCard, span: 6 },
  { card: 'alarms', Card: AlarmsCard, span: 12 },
  { card: 'alarmTrend', Card: AlarmTrendCard, span: 12 },
  { card: 'energy', Card: EnergyCard, span: 12 },
  { card: 'operations', Card: OperationsCard, span: 12 },
];

/** /dashboard: the cards of the pages the user holds, each with its own call and states. */
export function DashboardPage() {
  const { t } = useTranslation();
  const permissions = usePermissions();
  const refresh = useRouterRefresh();
  const shown = LAYOUT.filter(({ card }) => isGranted(permissions, DASHBOARD_CARDS[card]));
  if (shown.length === 0)
    return <Empty data-testid="dashboard-empty" style={{ marginTop: 64 }} description={t('dashboard.nothing')} />;
  return (
    <>
      <Flex justify="space-between" align="center" style={{ marginBottom: 8 }}>
        <Typography.Text type="secondary">{t('dashboard.utcDays')}</Typography.Text>
        <Button icon={<ReloadOutlined />} data-testid="dashboard-refresh" onClick={refresh}>
          {t('dashboard.refresh')}
        </Button>
      </Flex>
      <Row gutter={[12, 12]}>
        {shown.map(({ card, Card, span }) => (
          <Col key={card} xs={24} lg={12} xl={span}>
            <Card />
          </Col>
        ))}
      </Row>
    </>
  );
}
