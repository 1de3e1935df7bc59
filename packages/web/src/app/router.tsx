import { createBrowserRouter } from 'react-router';
import { RootLayout } from './root-layout';
import { lazyPage } from './routing/lazy-page';
import { LOGIN_PATH } from './routing/paths';
import { PageBoundary } from './routing/page-boundary';

const LoginPage = lazyPage(() => import('@/pages/login/login.page').then((m) => m.LoginPage));
/** Everything behind the login: header, menu, tabs and the permitted pages, in chunks of their own. */
const Shell = lazyPage(() => import('@/app/shell/shell').then((m) => m.Shell));

export function createAppRouter() {
  return createBrowserRouter([
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
  ]);
}
