import { flattenResourceTree, RESOURCE_TREE } from '@meterdesk/contracts';
import { describe, expect, it } from 'vitest';
import { indexPermissions } from '@/app/permissions/permission-index';
import { fullTree, permittedTree } from '@/test/resource-tree';
import { buildRouteTable, classifyUnmatched } from './route-table';

const tableFor = (uris: string[]) => buildRouteTable(indexPermissions(permittedTree(uris)));

describe('buildRouteTable', () => {
  it('adds a route for each permitted area, page and hidden page, and none for buttons', () => {
    const table = tableFor(['/dashboard', '/sysMGT/resourceMGT/add', '/sysMGT/notifyMGT/subscribe']);

    expect([...table.routes.keys()].sort()).toEqual(
      ['/', '/dashboard', '/sysMGT', '/sysMGT/notifyMGT', '/sysMGT/resourceMGT', '/sysMGT/resourceMGT/add'].sort(),
    );
    expect(table.routes.get('/sysMGT/resourceMGT/add')).toEqual({ kind: 'page', uri: '/sysMGT/resourceMGT/add' });
  });

  it('leads every area of spec §2 to its first permitted page', () => {
    const table = buildRouteTable(indexPermissions(fullTree()));

    expect(table.routes.get('/sysMGT')).toEqual({ kind: 'redirect', to: '/sysMGT/userMGT' });
    expect(table.routes.get('/archiveSetting')).toEqual({ kind: 'redirect', to: '/archiveSetting/powerGrid' });
    expect(table.routes.get('/serviceRequest')).toEqual({
      kind: 'redirect',
      to: '/serviceRequest/batchOperation',
    });
    expect(table.routes.get('/dataAnalytic')).toEqual({ kind: 'redirect', to: '/dataAnalytic/meterEvents' });
    expect(table.routes.get('/paymentMGT')).toEqual({ kind: 'redirect', to: '/paymentMGT/billingRules' });
  });

  it("follows the permitted order when the user lacks the area's spec page", () => {
    const table = tableFor(['/sysMGT/roleMGT', '/sysMGT/resourceMGT', '/dataAnalytic/loadProfile']);

    expect(table.routes.get('/sysMGT')).toEqual({ kind: 'redirect', to: '/sysMGT/roleMGT' });
    expect(table.routes.get('/dataAnalytic')).toEqual({ kind: 'redirect', to: '/dataAnalytic/loadProfile' });
  });

  it('treats the dashboard, an area without pages, as a page and the home', () => {
    const table = tableFor(['/dashboard', '/sysMGT/resourceMGT']);

    expect(table.routes.get('/dashboard')).toEqual({ kind: 'page', uri: '/dashboard' });
    expect(table.home).toBe('/dashboard');
    expect(table.routes.get('/')).toEqual({ kind: 'redirect', to: '/dashboard' });
  });

  it('sends home to the first permitted page when the dashboard is not granted', () => {
    const table = tableFor(['/sysMGT/resourceMGT/edit']);

    expect(table.home).toBe('/sysMGT/resourceMGT');
  });

  it('sends home to the no-permission page when only buttons are granted', () => {
    const index = indexPermissions(
      permittedTree(['/sysMGT/notifyMGT/subscribe']).flatMap((area) => area.children.flatMap((page) => page.children)),
    );

    expect(buildRouteTable(index).home).toBe('/no-permission');
  });
});

describe('classifyUnmatched', () => {
  const index = indexPermissions(permittedTree(['/dashboard']));

  it('calls a screen of the product the user lacks forbidden', () => {
    expect(classifyUnmatched('/sysMGT/userMGT', index)).toBe('forbidden');
    expect(classifyUnmatched('/sysMGT/resourceMGT/edit/', index)).toBe('forbidden');
    expect(classifyUnmatched('/sysMGT', index)).toBe('forbidden');
  });

  it('calls anything else not found, including buttons and wrong letter case', () => {
    expect(classifyUnmatched('/nowhere', index)).toBe('notFound');
    expect(classifyUnmatched('/sysMGT/notifyMGT/subscribe', index)).toBe('notFound');
    expect(classifyUnmatched('/sysmgt/usermgt', index)).toBe('notFound');
  });

  it('knows every page of the spec tree', () => {
    const pages = flattenResourceTree(RESOURCE_TREE).filter(({ seed }) => seed.type !== 3);
    const nothingGranted = indexPermissions([]);
    expect(pages.length).toBeGreaterThan(100);
    for (const { seed } of pages) expect(classifyUnmatched(seed.uri, nothingGranted), seed.uri).toBe('forbidden');
  });
});
