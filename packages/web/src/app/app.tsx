import { type QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App as AntApp, ConfigProvider } from 'antd';
import enUS from 'antd/locale/en_US';
import zhCN from 'antd/locale/zh_CN';
import dayjs from 'dayjs';
import 'dayjs/locale/zh-cn';
import type { ReactNode } from 'react';
import { RouterProvider } from 'react-router';
import { useLanguage } from '@/i18n/use-language';
import type { AppRouter } from './router';

/**
 * antd's texts and dayjs's month and weekday names in the interface language: a date picker is
 * Chinese throughout only with both.
 */
export function LocaleProvider({ children }: { children: ReactNode }) {
  const language = useLanguage();
  dayjs.locale(language === 'zh' ? 'zh-cn' : 'en');
  return <ConfigProvider locale={language === 'zh' ? zhCN : enUS}>{children}</ConfigProvider>;
}

export function AppRoot({ router, queryClient }: { router: AppRouter; queryClient: QueryClient }) {
  return (
    <QueryClientProvider client={queryClient}>
      <LocaleProvider>
        <AntApp>
          <RouterProvider router={router} />
        </AntApp>
      </LocaleProvider>
    </QueryClientProvider>
  );
}
