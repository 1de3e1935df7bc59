import { useTranslation } from 'react-i18next';
import { LANGUAGES, type Language } from '@/i18n/i18n';
import { useLanguage } from '@/i18n/use-language';

/** Two toggle buttons in plain markup (global.css): the login page shows it before antd has loaded. */
export function LanguageSwitch({ onChange }: { onChange: (language: Language) => void }) {
  const { t } = useTranslation();
  const language = useLanguage();
  return (
    <fieldset
      className="md-switch"
      aria-label={t('common.language')}
      data-testid="language-switch"
      style={{ border: 'none', margin: 0, padding: 0 }}
    >
      {LANGUAGES.map((option) => (
        <button
          key={option}
          type="button"
          aria-pressed={option === language}
          data-testid={`language-${option}`}
          onClick={() => option !== language && onChange(option)}
        >
          {t(`common.languages.${option}`)}
        </button>
      ))}
    </fieldset>
  );
}
