import { APP_ID, APP_VERSION } from '@meterdesk/contracts';
import { Card, Descriptions } from 'antd';
import { useTranslation } from 'react-i18next';

export function VersionPage() {
  const { t } = useTranslation();
  return (
    <Card title={t('pages.version.title')} style={{ maxWidth: 560 }}>
      <Descriptions
        column={1}
        bordered
        items={[
          {
            key: 'version',
            label: t('pages.version.version'),
            children: <span data-testid="app-version">{APP_VERSION}</span>,
          },
          { key: 'appId', label: t('pages.version.appId'), children: <span data-testid="app-id">{APP_ID}</span> },
        ]}
      />
    </Card>
  );
}
