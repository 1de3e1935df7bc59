import { render, screen, within } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { describe, expect, it } from 'vitest';
import { PermissionProvider } from '@/app/permissions/permission-context';
import { indexPermissions } from '@/app/permissions/permission-index';
import { permittedTree } from '@/test/resource-tree';
import { PageBreadcrumb } from './page-breadcrumb';

const TASKS = '/serviceRequest/scheduledTask/taskMGT';

function renderAt(entry: string) {
  const index = indexPermissions(permittedTree([TASKS, `${TASKS}/view/detail`]));
  const router = createMemoryRouter(
    [
      {
        path: '*',
        element: (
          <PermissionProvider index={index}>
            <PageBreadcrumb />
          </PermissionProvider>
        ),
      },
    ],
    { initialEntries: [entry] },
  );
  render(<RouterProvider router={router} />);
  return within(screen.getByTestId('breadcrumb'));
}

describe('page breadcrumb', () => {
  it('links a hidden page above this one with the query naming the record, a menu page without it', () => {
    const crumbs = renderAt(`${TASKS}/view/detail?id=abc`);
    expect(crumbs.getByRole('link', { name: 'View' }).getAttribute('href')).toBe(`${TASKS}/view?id=abc`);
    expect(crumbs.getByRole('link', { name: 'Task Management' }).getAttribute('href')).toBe(TASKS);
    expect(crumbs.queryByRole('link', { name: 'Detail' })).toBeNull();
  });
});
