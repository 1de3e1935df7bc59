import { useMemo } from 'react';
import { Navigate, type RouteObject, useLocation, useRoutes } from 'react-router';
import { usePermissions } from '@/app/permissions/permission-context';
import { lazyPage } from '@/app/routing/lazy-page';
import { PageBoundary } from '@/app/routing/page-boundary';
import { SHELL_PATHS } from '@/app/routing/paths';
import { classifyUnmatched, type RouteTable } from '@/app/routing/route-table';
import '@/locales/screen-texts';
import { pageFor } from '@/resources/registry';

const NotFoundPage = lazyPage(() => import('@/pages/errors/not-found.page').then((m) => m.NotFoundPage));
const ForbiddenPage = lazyPage(() => import('@/pages/errors/forbidden.page').then((m) => m.ForbiddenPage));
const NoPermissionPage = lazyPage(() => import('@/pages/errors/no-permission.page').then((m) => m.NoPermissionPage));
const VersionPage = lazyPage(() => import('@/pages/version/version.page').then((m) => m.VersionPage));

function ResourcePage({ uri }: { uri: string }) {
  const Page = pageFor(uri);
  return (
    <PageBoundary key={uri}>
      <Page />
    </PageBoundary>
  );
}

/** A product screen outside the user's roles shows 403 in place; anything else is a 404. */
function Unmatched() {
  const { pathname } = useLocation();
  const permissions = usePermissions();
  if (classifyUnmatched(pathname, permissions) === 'notFound') return <Navigate to={SHELL_PATHS.notFound} replace />;
  return (
    <PageBoundary>
      <ForbiddenPage />
    </PageBoundary>
  );
}

const page = (path: string, Page: ReturnType<typeof lazyPage>): RouteObject => ({
  path,
  element: (
    <PageBoundary>
      <Page />
    </PageBoundary>
  ),
});

/** Only the paths the permitted tree allows exist; they are built when the permissions arrive. */
export function ShellRoutes({ table }: { table: RouteTable }) {
  const routes = useMemo<RouteObject[]>(
    () => [
      ...[...table.routes].map(([path, target]) => ({
        path,
        caseSensitive: true,
        element: target.kind === 'page' ? <ResourcePage uri={target.uri} /> : <Navigate to={target.to} replace />,
      })),
      page(SHELL_PATHS.notFound, NotFoundPage),
      page(SHELL_PATHS.forbidden, ForbiddenPage),
      page(SHELL_PATHS.noPermission, NoPermissionPage),
      page(SHELL_PATHS.version, VersionPage),
      { path: '*', element: <Unmatched /> },
    ],
    [table],
  );
  return useRoutes(routes);
}
