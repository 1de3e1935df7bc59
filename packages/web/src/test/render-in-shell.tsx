import { RES, type ResourceNode } from '@meterdesk/contracts';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import { App } from 'antd';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { PermissionProvider } from '@/app/permissions/permission-context';
import { indexPermissions } from '@/app/permissions/permission-index';
import { buildRouteTable } from '@/app/routing/route-table';
import { ShellRoutes } from '@/app/shell/shell-routes';
import { createTabStore } from '@/app/tabs/tab-store';
import { TabsProvider } from '@/app/tabs/tabs-context';

/** The shell's routes for a user with `tree`, without header chrome, at `entry`. */
export function renderInShell(tree: ResourceNode[], entry: string) {
  const index = indexPermissions(tree);
  const table = buildRouteTable(index);
  const tabs = createTabStore({ storage: sessionStorage, storageKey: 'test.tabs', pinnedKey: RES.dashboard });
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const router = createMemoryRouter(
    [
      {
        path: '*',
        element: (
          <PermissionProvider index={index}>
            <TabsProvider store={tabs}>
              <ShellRoutes table={table} />
            </TabsProvider>
          </PermissionProvider>
        ),
      },
    ],
    { initialEntries: [entry] },
  );
  const view = render(
    <QueryClientProvider client={queryClient}>
      <App>
        <RouterProvider router={router} />
      </App>
    </QueryClientProvider>,
  );
  return { ...view, router, tabs, queryClient };
}
