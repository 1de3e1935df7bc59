import { Flex, Spin, Tabs } from 'antd';
import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import type { CrudConfig } from '@/crud/crud-config';
import { CrudDetailPage } from '@/crud/crud-detail';
import { MeterOperations } from '@/pages/operations/meter-operations';
import { VirtualMembers } from '@/pages/payment/virtual-members';
import { MeterHistory } from './meter-history';

const TAB = 'tab';
const OPERATIONS_TAB = 'operations';
const DATA_TAB = 'data';
const OTHER_TABS: readonly string[] = [OPERATIONS_TAB, DATA_TAB];

/** The data tab comes with its chart in a chunk of its own, fetched when the tab first opens. */
const MeterData = lazy(() => import('@/pages/collection/meter-data').then((m) => ({ default: m.MeterData })));

/**
 * The kit's detail page of a meter with its dated status history, and beside it the operations and
 * data tabs (the tab is in the URL so a reload keeps it). A tab once opened stays mounted, so a command still
 * running keeps its live results while the user looks at the detail.
 */
export function MeterDetailPage({ crud }: { crud: CrudConfig }) {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const id = params.get('id') ?? '';
  const tab = params.get(TAB) ?? '';
  const active = OTHER_TABS.includes(tab) ? tab : 'detail';
  return (
    <Tabs
      activeKey={active}
      onChange={(key) => setParams(OTHER_TABS.includes(key) ? { id, [TAB]: key } : { id })}
      items={[
        {
          key: 'detail',
          label: <span data-testid="meter-tab-detail">{t('operations.screen.detailTab')}</span>,
          children: (
            <Flex vertical gap="middle">
              <CrudDetailPage crud={crud}>
                <VirtualMembers id={id} />
                <MeterHistory id={id} />
              </CrudDetailPage>
            </Flex>
          ),
        },
        {
          key: OPERATIONS_TAB,
          label: <span data-testid="meter-tab-operations">{t('operations.screen.operationsTab')}</span>,
          children: id && <MeterOperations id={id} />,
        },
        {
          key: DATA_TAB,
          label: <span data-testid="meter-tab-data">{t('readings.tab')}</span>,
          children: id && (
            <Suspense fallback={<Spin />}>
              <MeterData id={id} />
            </Suspense>
          ),
        },
      ]}
    />
  );
}
