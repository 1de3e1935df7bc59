import { App as AntApp, ConfigProvider } from 'antd';
import enUS from 'antd/locale/en_US';
import zhCN from 'antd/locale/zh_CN';
import dayjs from 'dayjs';
import 'dayjs/locale/zh-cn';
import type { ReactNode } from 'react';
import { FIRST_ERROR_SCROLL } from '@/crud/form-errors';
import { useLanguage } from '@/i18n/use-language';

/** Header menu items a little tighter than antd's, so the eight areas fit beside logo and user menu. */
const THEME = { components: { Menu: { itemPaddingInline: 12, iconMarginInlineEnd: 6 } } };

const FORM = { scrollToFirstError: FIRST_ERROR_SCROLL };

/**
 * antd's texts and dayjs's month and weekday names in the interface language: a date picker is
 * Chinese throughout only with both.
 */
export function LocaleProvider({ children }: { children: ReactNode }) {
  const language = useLanguage();
  dayjs.locale(language === 'zh' ? 'zh-cn' : 'en');
  return (
    <ConfigProvider locale={language === 'zh' ? zhCN : enUS} theme={THEME} form={FORM}>
      {children}
    </ConfigProvider>
  );
}

/** antd's theme, locale and App context: for the shell and its dialogs, in the shell's chunk. */
export function AntdRoot({ children }: { children: ReactNode }) {
  return (
    <LocaleProvider>
      <AntApp>{children}</AntApp>
    </LocaleProvider>
  );
}
