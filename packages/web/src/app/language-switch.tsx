import { TranslationOutlined } from '@ant-design/icons';
import { Button, Dropdown } from 'antd';
import { useTranslation } from 'react-i18next';
import { type Language, LANGUAGES } from '@/i18n/i18n';
import { useLanguage } from '@/i18n/use-language';

export function LanguageSwitch({ onChange }: { onChange: (language: Language) => void }) {
  const { t } = useTranslation();
  const language = useLanguage();
  return (
    <Dropdown
      trigger={['click']}
      menu={{
        selectedKeys: [language],
        items: LANGUAGES.map((option) => ({
          key: option,
          label: <span data-testid={`language-${option}`}>{t(`common.languages.${option}`)}</span>,
        })),
        onClick: ({ key }) => onChange(key as Language),
      }}
    >
      <Button type="text" icon={<TranslationOutlined />} data-testid="language-switch" aria-label={t('common.language')}>
        {t(`common.languages.${language}`)}
      </Button>
    </Dropdown>
  );
}
