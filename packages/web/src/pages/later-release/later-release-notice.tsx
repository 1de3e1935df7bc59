import { Empty, Typography } from 'antd';
import { useTranslation } from 'react-i18next';

/** What a screen that a later issue builds shows until then: an honest empty state, never sample data. */
export function LaterReleaseNotice() {
  const { t } = useTranslation();
  return (
    <Empty
      data-testid="later-release"
      style={{ marginTop: 64 }}
      description={
        <>
          <Typography.Title level={5}>{t('pages.later.title')}</Typography.Title>
          <Typography.Text type="secondary">{t('pages.later.description')}</Typography.Text>
        </>
      }
    />
  );
}
