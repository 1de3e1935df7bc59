import { createBrowserRouter, type RouteObject } from 'react-router';
import { RootLayout } from './root-layout';
import { lazyPage } from './routing/lazy-page';
import { PageBoundary } from './routing/page-boundary';
import { LOGIN_PATH } from './routing/paths';

const LoginPage = lazyPage(() => import('@/pages/login/login.page').then((m) => m.LoginPage));
/** Everything behind the login: header, menu, tabs and the permitted pages, in chunks of their own. */
const Shell = lazyPage(() => import('@/app/shell/shell').then((m) => m.Shell));

export const APP_ROUTES: RouteObject[] = [
  {
    element: <RootLayout />,
    children: [
      {
        path: LOGIN_PATH,
        element: (
          <PageBoundary>
            <LoginPage />
          </PageBoundary>
        ),
      },
      {
        path: '*',
        element: (
          <PageBoundary>
            <Shell />
          </PageBoundary>
        ),
      },
    ],
  },
];

export type AppRouter = ReturnType<typeof createBrowserRouter>;

export function createAppRouter(): AppRouter {
  return createBrowserRouter(APP_ROUTES);
}
