import { Button, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { messageText } from '@/i18n/message-text';

/** A screen of the product this user's roles do not include. */
export function ForbiddenPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  return (
    <Result
      status="403"
      title={t('pages.forbidden.title')}
      subTitle={messageText(t, 'forbidden')}
      data-testid="page-forbidden"
      extra={
        <Button type="primary" onClick={() => navigate('/')}>
          {t('pages.backHome')}
        </Button>
      }
    />
  );
}
