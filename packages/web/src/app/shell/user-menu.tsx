import { DownOutlined, InfoCircleOutlined, KeyOutlined, LogoutOutlined, UserOutlined } from '@ant-design/icons';
import { Button, Dropdown } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { SHELL_PATHS } from '@/app/routing/paths';
import type { SessionUser } from '@/app/session/session-store';

export function UserMenu({
  user,
  onChangePassword,
  onLogout,
}: {
  user: SessionUser;
  onChangePassword: () => void;
  onLogout: () => void;
}) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const actions: Record<string, () => void> = {
    changePassword: onChangePassword,
    version: () => navigate(SHELL_PATHS.version),
    logout: onLogout,
  };

  return (
    <Dropdown
      trigger={['click']}
      menu={{
        items: [
          {
            key: 'changePassword',
            icon: <KeyOutlined />,
            label: <span data-testid="menu-change-password">{t('shell.changePassword')}</span>,
          },
          {
            key: 'version',
            icon: <InfoCircleOutlined />,
            label: <span data-testid="menu-version">{t('shell.version')}</span>,
          },
          { type: 'divider' },
          {
            key: 'logout',
            icon: <LogoutOutlined />,
            label: <span data-testid="menu-logout">{t('shell.logout')}</span>,
          },
        ],
        onClick: ({ key }) => actions[key]?.(),
      }}
    >
      <Button type="text" icon={<UserOutlined />} data-testid="user-menu" aria-label={t('shell.userMenu')}>
        {user.fullName || user.username} <DownOutlined />
      </Button>
    </Dropdown>
  );
}
