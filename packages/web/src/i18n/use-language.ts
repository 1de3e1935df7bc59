import { useTranslation } from 'react-i18next';
import type { Language } from './i18n';

/** The interface language; components using it re-render when it switches. */
export function useLanguage(): Language {
  const { i18n } = useTranslation();
  return i18n.language === 'zh' ? 'zh' : 'en';
}
