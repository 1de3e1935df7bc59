import { SendOutlined } from '@ant-design/icons';
import { RES } from '@meterdesk/contracts';
import { Button, Tabs } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { usePermissions } from '@/app/permissions/permission-context';
import { CrudListPage } from '@/crud/crud-list-page';
import { myNoticeCrud, noticeBatchCrud } from '@/resources/system/notice.resource';

const TAB = 'tab';
const KEEP = [TAB];

/** The caller's notices and the batches sent, one tab each; the tab is in the URL so a reload keeps it. */
export function NoticesPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const permissions = usePermissions();
  const [params, setParams] = useSearchParams();
  const active = params.get(TAB) === 'sent' ? 'sent' : 'mine';
  const canSend = permissions.buttons.has(RES.noticeSend) && permissions.pages.has(RES.noticeAnnouncement);

  return (
    <Tabs
      activeKey={active}
      // Each list keeps its paging in the URL, so switching starts the other one afresh.
      onChange={(key) => setParams({ [TAB]: key })}
      destroyOnHidden
      tabBarExtraContent={
        canSend && (
          <Button
            type="primary"
            icon={<SendOutlined />}
            data-testid="notice-send"
            onClick={() => navigate(RES.noticeAnnouncement)}
          >
            {t('notice.send.open')}
          </Button>
        )
      }
      items={[
        {
          key: 'mine',
          label: <span data-testid="notice-tab-mine">{t('notice.tabs.mine')}</span>,
          children: <CrudListPage crud={myNoticeCrud} keepParams={KEEP} />,
        },
        {
          key: 'sent',
          label: <span data-testid="notice-tab-sent">{t('notice.tabs.sent')}</span>,
          children: <CrudListPage crud={noticeBatchCrud} keepParams={KEEP} />,
        },
      ]}
    />
  );
}
