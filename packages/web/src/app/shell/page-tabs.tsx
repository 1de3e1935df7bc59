import { CloseOutlined } from '@ant-design/icons';
import { Button, Flex, Tabs } from 'antd';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';
import { usePermissions } from '@/app/permissions/permission-context';
import { pageTitle } from '@/app/permissions/permission-index';
import { SHELL_PATHS } from '@/app/routing/paths';
import { normalizePath } from '@/app/routing/route-table';
import { useTabState, useTabStore } from '@/app/tabs/tabs-context';
import { useLanguage } from '@/i18n/use-language';

export function PageTabs() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const permissions = usePermissions();
  const language = useLanguage();
  const store = useTabStore();
  const { tabs } = useTabState();
  const current = normalizePath(pathname);

  const title = (key: string) =>
    key === SHELL_PATHS.version ? t('shell.version') : (pageTitle(permissions, key, language) ?? key);
  const go = (location: string | null) => {
    if (location !== null) void navigate(location);
  };

  return (
    <Tabs
      type="editable-card"
      hideAdd
      size="small"
      activeKey={tabs.some((tab) => tab.key === current) ? current : ''}
      onChange={(key) => go(tabs.find((tab) => tab.key === key)?.location ?? key)}
      onEdit={(key, action) => {
        if (action === 'remove' && typeof key === 'string') go(store.close(key));
      }}
      items={tabs.map((tab) => ({
        key: tab.key,
        label: <span data-testid={`tab-${tab.key}`}>{title(tab.key)}</span>,
        closable: store.isClosable(tab.key),
        closeIcon: <CloseOutlined data-testid={`tab-close-${tab.key}`} />,
      }))}
      tabBarExtraContent={
        <Flex gap="small">
          <Button size="small" data-testid="tabs-close-others" onClick={() => go(store.closeOthers(current))}>
            {t('shell.closeOthers')}
          </Button>
          <Button size="small" data-testid="tabs-close-all" onClick={() => go(store.closeAll())}>
            {t('shell.closeAll')}
          </Button>
        </Flex>
      }
      tabBarStyle={{ margin: 0 }}
    />
  );
}
