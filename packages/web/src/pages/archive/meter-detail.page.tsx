import { Flex, Tabs } from 'antd';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import type { CrudConfig } from '@/crud/crud-config';
import { CrudDetailPage } from '@/crud/crud-detail';
import { MeterOperations } from '@/pages/operations/meter-operations';
import { MeterHistory } from './meter-history';

const TAB = 'tab';
const OPERATIONS_TAB = 'operations';

/**
 * The kit's detail page of a meter with its dated status history, and beside it the operations tab
 * (the tab is in the URL so a reload keeps it). A tab once opened stays mounted, so a command still
 * running keeps its live results while the user looks at the detail.
 */
export function MeterDetailPage({ crud }: { crud: CrudConfig }) {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const id = params.get('id') ?? '';
  const active = params.get(TAB) === OPERATIONS_TAB ? OPERATIONS_TAB : 'detail';
  return (
    <Tabs
      activeKey={active}
      onChange={(key) => setParams(key === OPERATIONS_TAB ? { id, [TAB]: key } : { id })}
      items={[
        {
          key: 'detail',
          label: <span data-testid="meter-tab-detail">{t('operations.screen.detailTab')}</span>,
          children: (
            <Flex vertical gap="middle">
              <CrudDetailPage crud={crud} />
              {id && <MeterHistory id={id} />}
            </Flex>
          ),
        },
        {
          key: OPERATIONS_TAB,
          label: <span data-testid="meter-tab-operations">{t('operations.screen.operationsTab')}</span>,
          children: id && <MeterOperations id={id} />,
        },
      ]}
    />
  );
}
