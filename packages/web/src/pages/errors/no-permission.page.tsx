import { Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { messageText } from '@/i18n/message-text';

/** The user may log in but no menu page is permitted (only buttons, say). */
export function NoPermissionPage() {
  const { t } = useTranslation();
  return (
    <Result
      status="403"
      title={t('pages.noPermission.title')}
      subTitle={messageText(t, 'noPermission')}
      data-testid="page-no-permission"
    />
  );
}
