import { Radio } from 'antd';
import { useTranslation } from 'react-i18next';
import { LANGUAGES, type Language } from '@/i18n/i18n';
import { useLanguage } from '@/i18n/use-language';

/** Button-style radios: antd's Dropdown and Segmented would bring Menu or Tooltip into the login chunk. */
export function LanguageSwitch({ onChange }: { onChange: (language: Language) => void }) {
  const { t } = useTranslation();
  const language = useLanguage();
  return (
    <Radio.Group
      size="small"
      optionType="button"
      value={language}
      onChange={(event) => onChange(event.target.value as Language)}
      aria-label={t('common.language')}
      data-testid="language-switch"
      options={LANGUAGES.map((option) => ({
        value: option,
        label: <span data-testid={`language-${option}`}>{t(`common.languages.${option}`)}</span>,
      }))}
    />
  );
}
