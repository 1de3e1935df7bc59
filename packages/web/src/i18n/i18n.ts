import { LANGUAGE, type LanguageCode } from '@meterdesk/contracts';
import { enCore } from '@meterdesk/contracts/locales/en';
import { zhCore } from '@meterdesk/contracts/locales/zh';
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';

export type Language = 'en' | 'zh';
export const LANGUAGES: readonly Language[] = ['en', 'zh'];
const STORAGE_KEY = 'meterdesk.language';

export function languageFromCode(code: LanguageCode): Language {
  return code === LANGUAGE.zh ? 'zh' : 'en';
}

export function languageCode(language: Language): LanguageCode {
  return LANGUAGE[language];
}

function storedLanguage(): Language {
  try {
    return localStorage.getItem(STORAGE_KEY) === 'zh' ? 'zh' : 'en';
  } catch {
    return 'en';
  }
}

export const i18n = i18next.createInstance();

void i18n.use(initReactI18next).init({
  resources: { en: { translation: enCore }, zh: { translation: zhCore } },
  lng: storedLanguage(),
  fallbackLng: 'en',
  supportedLngs: LANGUAGES,
  interpolation: { escapeValue: false },
  initAsync: false,
});

/** Switches the interface at once and remembers the choice for the next visit to /login. */
export function applyLanguage(language: Language): void {
  try {
    localStorage.setItem(STORAGE_KEY, language);
  } catch {
    // Private mode: the choice still applies to this page.
  }
  if (i18n.language !== language) void i18n.changeLanguage(language);
  document.documentElement.lang = language === 'zh' ? 'zh-CN' : 'en';
}
